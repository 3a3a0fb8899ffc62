package widget

import "testing"

type probe struct{ calls int }

func (w *Widget) String() string {
	return w.Render()
}

func (p *probe) Render() string {
	p.calls++
	return "probe"
}

func TestRender(t *testing.T) {
	w := &Widget{Name: "x"}
	if w.String() != "[x]" {
		t.Fatal(w.String())
	}
}
