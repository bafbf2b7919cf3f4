// A profile as a markdown table, for docs/cost-model.md (netsim machine
// -md).

package machine

import (
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes p's facts and costs as markdown tables: a row per
// fact, then a row per field with its value, provenance and source text.
// With own, a profile that has a base gets rows only for what it sets
// itself: its facts and the costs that differ from its base's.
func (p *Profile) WriteMarkdown(w io.Writer, own bool) error {
	var base *Profile
	if own && p.Base != "" {
		b, err := Load(p.Base)
		if err != nil {
			return err
		}
		base = b
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**: %s\n\n", p.Name, cell(p.Title))
	if p.Base != "" {
		fmt.Fprintf(&b, "Base: %s.\n\n", p.Base)
	}
	fmt.Fprintf(&b, "| fact | value | source |\n|---|---|---|\n")
	unknown := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	num := func(v int64, f func(int64) string) string {
		if v == 0 {
			return "unknown"
		}
		return f(v)
	}
	itoa := func(v int64) string { return fmt.Sprint(v) }
	for _, f := range []struct{ name, value, key string }{
		{"cpu", unknown(p.Facts.CPU), ""},
		{"cpus", num(int64(p.Facts.CPUs), itoa), "CPUs"},
		{"hz", num(int64(p.Facts.HZ), itoa), "HZ"},
		{"kernel", unknown(p.Facts.Kernel), ""},
		{"pagesize", num(p.Facts.PageSize, formatSize), "PageSize"},
		{"date", unknown(p.Facts.Date), ""},
	} {
		src := ""
		if s, ok := p.Sources[f.key]; ok && f.key != "" {
			src = "**" + s.Kind.String() + "**: " + cell(s.Text)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", f.name, cell(f.value), src)
	}
	fmt.Fprintf(&b, "\n| parameter | value | source |\n|---|---:|---|\n")
	rows := 0
	for _, f := range costFields {
		v, _ := p.Value(f.name)
		src := p.Sources[f.name]
		if base != nil {
			bv, _ := base.Value(f.name)
			if bv == v && base.Sources[f.name] == src {
				continue
			}
		}
		rows++
		fmt.Fprintf(&b, "| `%s` | %s | **%s**: %s |\n", f.name, v, src.Kind, cell(src.Text))
	}
	if rows == 0 {
		fmt.Fprintf(&b, "| (none: every cost is %s's) | | |\n", p.Base)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell escapes text for a markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
