// Package widget draws widgets. This file holds no symbols of its own.
package widget
