package widget

// Widget is drawn by Render.
type Widget struct {
	Name string
}

// Render draws the widget.
func (w *Widget) Render() string {
	return label(w.Name)
}

func label(name string) string {
	return "[" + name + "]"
}
