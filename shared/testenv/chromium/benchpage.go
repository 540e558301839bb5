package chromium

import (
	"fmt"
	"strings"
)

// BenchPage is the benchmarks' page: about 1,400 DOM elements in 87 sections, each with a heading, a
// paragraph, a list of five links, a button and an entry.
func BenchPage() string {
	var sb strings.Builder
	sb.WriteString("<!doctype html><html><head><title>Bench page</title></head><body><main>")
	for i := range 87 {
		fmt.Fprintf(&sb, "<section><h2>Section %d</h2><p>Paragraph %d with some words.</p><ul>", i, i)
		for j := range 5 {
			fmt.Fprintf(&sb, `<li><a href="#s%d-%d">Link %d-%d</a></li>`, i, j, i, j)
		}
		fmt.Fprintf(&sb, `</ul><button>Button %d</button><input aria-label="Field %d" value="v%d"></section>`, i, i, i)
	}
	sb.WriteString("</main></body></html>")
	return sb.String()
}
