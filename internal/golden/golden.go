// Package golden reads and writes netsim's golden files: text in named
// sections, each opened by a line "-- NAME --" (the txtar layout), after an
// optional comment. The ip script tests (iproute/testdata), the kernel
// transcripts (internal/kerneldiff, nlwire/testdata) and the rt6_stats
// recordings (fib6/testdata) all use it, so a golden has one syntax and
// one way to mark a text that does not end in a newline.
package golden

import "strings"

// NoNewline is the line that follows a section's text when the text does
// not end in a newline, as diff marks such a file ("\ No newline at end
// of file").
const NoNewline = `\ no newline`

// A Section is one named part of a golden file.
type Section struct {
	Name string
	Text string // the lines after the header, each with its newline
}

// A File is a golden file: its comment (the text before the first
// section) and its sections in order.
type File struct {
	Comment  string
	Sections []Section
}

// header returns the name of a section header line ("-- NAME --", with or
// without its newline).
func header(line string) (string, bool) {
	l := strings.TrimSuffix(line, "\n")
	if len(l) > 6 && strings.HasPrefix(l, "-- ") && strings.HasSuffix(l, " --") {
		return l[3 : len(l)-3], true
	}
	return "", false
}

// Parse splits data into its comment and sections. Format gives data
// back byte for byte.
func Parse(data string) File {
	var f File
	var b strings.Builder
	cur := -1
	flush := func() {
		if cur < 0 {
			f.Comment = b.String()
		} else {
			f.Sections[cur].Text = b.String()
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(data, "\n") {
		if name, ok := header(line); ok {
			flush()
			f.Sections = append(f.Sections, Section{Name: name})
			cur = len(f.Sections) - 1
			continue
		}
		b.WriteString(line)
	}
	flush()
	return f
}

// Format writes f as Parse reads it.
func (f *File) Format() string {
	var b strings.Builder
	b.WriteString(f.Comment)
	for _, s := range f.Sections {
		WriteSection(&b, s.Name, s.Text)
	}
	return b.String()
}

// WriteSection writes the header of section name and text. The text is
// written as it is: see Mark for one without a final newline.
func WriteSection(b *strings.Builder, name, text string) {
	b.WriteString("-- " + name + " --\n")
	b.WriteString(text)
}

// Get returns the text of the first section called name.
func (f *File) Get(name string) (string, bool) {
	for _, s := range f.Sections {
		if s.Name == name {
			return s.Text, true
		}
	}
	return "", false
}

// Set makes text the content of section name, appending the section when
// f has none of that name.
func (f *File) Set(name, text string) {
	for i := range f.Sections {
		if f.Sections[i].Name == name {
			f.Sections[i].Text = text
			return
		}
	}
	f.Sections = append(f.Sections, Section{Name: name, Text: text})
}

// Names returns the section names in order.
func (f *File) Names() []string {
	names := make([]string, len(f.Sections))
	for i, s := range f.Sections {
		names[i] = s.Name
	}
	return names
}

// Mark returns text ready to go in a section: as it is when it is empty
// or ends in a newline, else followed by a newline and the NoNewline line.
// Unmark undoes it.
func Mark(text string) string {
	if text == "" || strings.HasSuffix(text, "\n") {
		return text
	}
	return text + "\n" + NoNewline + "\n"
}

// Unmark returns the text Mark was given.
func Unmark(text string) string {
	if s, ok := strings.CutSuffix(text, "\n"+NoNewline+"\n"); ok {
		return s
	}
	return text
}
