// The profile file format: reading it (Parse) and writing it (WriteTo),
// with every sim.Costs field found by reflection.

package machine

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/netsimlab/netsim/sim"
)

// Format is the profile file format, as Parse reads it and WriteTo writes
// it (netsim machine -help prints it).
const Format = `A profile is a text file, one entry a line; blank lines and lines whose
first character is # are ignored, and a line that starts with a space or a
tab continues the text of the entry before it.

  name NAME                 the profile's name (default: the file's, less .profile)
  title TEXT                one line saying what machine it is
  base NAME                 a shipped profile this one derives from: every cost
                            the file does not set is the base's, with its source
  cpu TEXT                  the processor, or unknown
  kernel TEXT               the kernel release, or unknown
  date TEXT                 when the costs were measured or published, or unknown
  cpus N [SOURCE]           logical CPUs, or unknown
  hz N [SOURCE]             CONFIG_HZ, or unknown
  pagesize SIZE [SOURCE]    bytes of a base page, or unknown
  FIELD VALUE SOURCE        one sim.Costs field: a duration (3.4µs, 190ns, 2ms);
                            Memory's load latencies (Memory.L2Hit, ...) to the
                            picosecond (4.86ns); Memory's capacities (Memory.L1,
                            .L2, .L3) in bytes with an optional K, M or G
                            (1024-based) suffix; the grace-period shares
                            (GracePeriodTicks2 ... 6) in per mille

SOURCE is a provenance word and the text that backs it:
  measured TEXT             the command that measures it and its output line
  derived TEXT              the formula and the figures it is computed from
  calibrated TEXT           the published time it is fitted to
  estimated TEXT            the reason for the value

Every sim.Costs field must end up with a value and a source, from the file
or its base. Facts are the machine's own: a base gives none.
`

// fieldKind is how a profile writes a sim.Costs field's value.
type fieldKind uint8

const (
	durationField fieldKind = iota // time.Duration
	sizeField                      // int64 bytes
	latencyField                   // sim.Latency, picoseconds written as ns
	perMilleField                  // sim.PerMille, 0 to 1000
)

// costField is one sim.Costs field, by reflection.
type costField struct {
	name  string // "Syscall", "Memory.L1"
	index []int
	kind  fieldKind
}

// costFields are every field of sim.Costs, in declaration order, Memory's
// as "Memory.X". A field of a type the format cannot write is a bug to fix
// here: costFields panics at init.
var costFields = fieldsOf(reflect.TypeFor[sim.Costs](), nil, "")

func fieldsOf(t reflect.Type, index []int, prefix string) []costField {
	var out []costField
	for i := range t.NumField() {
		f := t.Field(i)
		idx := append(slices.Clone(index), i)
		switch {
		case f.Type == reflect.TypeFor[time.Duration]():
			out = append(out, costField{prefix + f.Name, idx, durationField})
		case f.Type == reflect.TypeFor[sim.Latency]():
			out = append(out, costField{prefix + f.Name, idx, latencyField})
		case f.Type == reflect.TypeFor[sim.PerMille]():
			out = append(out, costField{prefix + f.Name, idx, perMilleField})
		case f.Type.Kind() == reflect.Int64:
			out = append(out, costField{prefix + f.Name, idx, sizeField})
		case f.Type.Kind() == reflect.Struct:
			out = append(out, fieldsOf(f.Type, idx, prefix+f.Name+".")...)
		default:
			panic(fmt.Sprintf("machine: sim.Costs field %s%s has type %s, which a profile cannot hold", prefix, f.Name, f.Type))
		}
	}
	return out
}

// fieldNamed returns the sim.Costs field name.
func fieldNamed(name string) (costField, bool) {
	for _, f := range costFields {
		if f.name == name {
			return f, true
		}
	}
	return costField{}, false
}

// FieldNames returns the names of every sim.Costs field a profile holds,
// in declaration order ("Syscall", ..., "Memory.L1", ...).
func FieldNames() []string {
	names := make([]string, len(costFields))
	for i, f := range costFields {
		names[i] = f.name
	}
	return names
}

// Value returns the value of field name of p's costs, as the file writes
// it ("3.4µs", "32M"), and whether there is such a field.
func (p *Profile) Value(name string) (string, bool) {
	f, ok := fieldNamed(name)
	if !ok {
		return "", false
	}
	return f.format(reflect.ValueOf(p.Costs).FieldByIndex(f.index).Int()), true
}

func (f costField) format(v int64) string {
	switch f.kind {
	case sizeField:
		return formatSize(v)
	case latencyField:
		return sim.Latency(v).String()
	case perMilleField:
		return strconv.FormatInt(v, 10)
	}
	return time.Duration(v).String()
}

func (f costField) parse(s string) (int64, error) {
	switch f.kind {
	case sizeField:
		return parseSize(s)
	case latencyField:
		l, err := sim.ParseLatency(s)
		return int64(l), err
	case perMilleField:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 || n > 1000 || strings.HasPrefix(s, "+") {
			return 0, fmt.Errorf("%q is not a share per mille (0 to 1000)", s)
		}
		return n, nil
	}
	if s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (3.4µs, 190ns, 2ms)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%s is negative", s)
	}
	return int64(d), nil
}

// sizeSuffixes are the multipliers of a size's suffix, largest first.
var sizeSuffixes = []struct {
	s string
	m int64
}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}}

// parseSize reads bytes with an optional K, M or G suffix.
func parseSize(s string) (int64, error) {
	num, mul := s, int64(1)
	for _, x := range sizeSuffixes {
		if n, ok := strings.CutSuffix(s, x.s); ok {
			num, mul = n, x.m
			break
		}
	}
	if strings.HasPrefix(num, "-") {
		return 0, fmt.Errorf("%s is negative", s)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || strings.HasPrefix(num, "+") {
		return 0, fmt.Errorf("%q is not a size in bytes (4096, 32K, 1M, 2G)", s)
	}
	if n > (1<<63-1)/mul {
		return 0, fmt.Errorf("%s is too large", s)
	}
	return n * mul, nil
}

// formatSize writes bytes with the largest suffix that divides them.
func formatSize(v int64) string {
	for _, x := range sizeSuffixes {
		if v != 0 && v%x.m == 0 {
			return strconv.FormatInt(v/x.m, 10) + x.s
		}
	}
	return strconv.FormatInt(v, 10)
}

// Parse reads a profile from r; file names it in errors, which read
// "FILE:LINE: message". A base is looked up among the shipped profiles.
func Parse(file string, r io.Reader) (*Profile, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return parse(file, b, nil)
}

// lookupFunc returns the text of the shipped profile name.
type lookupFunc func(name string) ([]byte, bool)

// parser is the state of reading one profile file.
type parser struct {
	file   string
	p      *Profile
	seen   map[string]int // entry key → its line
	set    map[string]bool
	lookup lookupFunc
	stack  []string     // the bases being read, outermost first (cycles)
	cont   func(string) // extends the text of the last entry (continuation lines)
	line   int
}

func (ps *parser) errorf(format string, a ...any) error {
	return fmt.Errorf("%s:%d: %s", ps.file, ps.line, fmt.Sprintf(format, a...))
}

// parse reads the profile text b of file, looking bases up with lookup
// (nil: the shipped profiles); stack holds the shipped profiles being read
// (the one in b last, if b is one), for a base cycle to be an error.
func parse(file string, b []byte, lookup lookupFunc, stack ...string) (*Profile, error) {
	if lookup == nil {
		lookup = shippedText
	}
	ps := &parser{
		file:   file,
		p:      &Profile{Sources: map[string]Source{}},
		seen:   map[string]int{},
		set:    map[string]bool{},
		lookup: lookup,
		stack:  stack,
	}
	lines := strings.Split(string(b), "\n")
	for i, raw := range lines {
		ps.line = i + 1
		raw = strings.TrimSuffix(raw, "\r")
		s := strings.TrimSpace(raw)
		if s == "" || raw[0] == '#' {
			continue
		}
		if raw[0] == ' ' || raw[0] == '\t' {
			if ps.cont == nil {
				return nil, ps.errorf("an indented line continues the text of the entry before it, and there is none")
			}
			ps.cont(s)
			continue
		}
		ps.cont = nil
		if err := ps.entry(s); err != nil {
			return nil, err
		}
	}
	p := ps.p
	if p.Name == "" {
		p.Name = strings.TrimSuffix(filepath.Base(file), ext)
	}
	if !validName(p.Name) {
		return nil, fmt.Errorf("%s: profile name %q: want letters, digits, '-' and '_'", file, p.Name)
	}
	var missing []string
	for _, f := range costFields {
		if _, ok := p.Sources[f.name]; !ok {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s:%d: no value for %s: every sim.Costs field needs a line (or a base that has it)",
			file, len(lines), strings.Join(missing, ", "))
	}
	for k, src := range p.Sources {
		if src.Text == "" {
			return nil, fmt.Errorf("%s: %s: a %s value needs a text saying where it comes from", file, k, src.Kind)
		}
	}
	return p, nil
}

// normalize collapses a text's runs of white space to single spaces.
func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// factKeys are the facts' entries: string facts take the rest of the line,
// numeric ones a value and an optional source.
var factKeys = map[string]bool{"cpu": true, "kernel": true, "date": true, "cpus": false, "hz": false, "pagesize": false}

// numericFactField names the Sources key of a numeric fact.
var numericFactField = map[string]string{"cpus": "CPUs", "hz": "HZ", "pagesize": "PageSize"}

// entry reads one line (not blank, not a comment, not a continuation).
func (ps *parser) entry(s string) error {
	key, rest := s, ""
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		key, rest = s[:i], strings.TrimSpace(s[i:])
	}
	if prev, dup := ps.seen[key]; dup {
		return ps.errorf("%s set again (first at line %d)", key, prev)
	}
	ps.seen[key] = ps.line
	p := ps.p
	switch key {
	case "name":
		if !validName(rest) {
			return ps.errorf("name %q: want one word of letters, digits, '-' and '_'", rest)
		}
		p.Name = rest
		return nil
	case "title":
		if rest == "" {
			return ps.errorf("title needs a text")
		}
		p.Title = normalize(rest)
		ps.cont = func(s string) { p.Title = normalize(p.Title + " " + s) }
		return nil
	case "base":
		return ps.base(rest)
	}
	if str, ok := factKeys[key]; ok {
		if str {
			return ps.stringFact(key, rest)
		}
		return ps.numericFact(key, rest)
	}
	f, ok := fieldNamed(key)
	if !ok {
		return ps.errorf("unknown entry %q: not a fact (name, title, base, cpu, cpus, hz, kernel, pagesize, date) nor a sim.Costs field", key)
	}
	words := strings.Fields(rest)
	if len(words) == 0 {
		return ps.errorf("%s needs a value and a source (%s 3.4µs measured COMMAND: OUTPUT)", key, key)
	}
	v, err := f.parse(words[0])
	if err != nil {
		return ps.errorf("%s: %v", key, err)
	}
	src, err := ps.source(key, words[1:], true)
	if err != nil {
		return err
	}
	reflect.ValueOf(&p.Costs).Elem().FieldByIndex(f.index).SetInt(v)
	p.Sources[key] = src
	ps.set[key] = true
	ps.continueSource(key)
	return nil
}

// continueSource makes continuation lines extend the text of key's source.
func (ps *parser) continueSource(key string) {
	ps.cont = func(s string) {
		src := ps.p.Sources[key]
		src.Text = normalize(src.Text + " " + s)
		ps.p.Sources[key] = src
	}
}

// source reads a source ("measured TEXT") from words; a numeric fact's
// may be absent (required false: the zero Source, ok false).
func (ps *parser) source(key string, words []string, required bool) (Source, error) {
	if len(words) == 0 {
		if required {
			return Source{}, ps.errorf("%s needs a source: measured, derived, calibrated or estimated, and the text that backs it", key)
		}
		return Source{}, errNoSource
	}
	kind, ok := parseProvenance(words[0])
	if !ok {
		return Source{}, ps.errorf("%s: %q is not a provenance: want measured, derived, calibrated or estimated", key, words[0])
	}
	if len(words) == 1 {
		return Source{}, ps.errorf("%s: %s needs a text saying where it comes from (the command, the formula, the published row or the reason)", key, words[0])
	}
	return Source{Kind: kind, Text: strings.Join(words[1:], " ")}, nil
}

// errNoSource is source's report of a numeric fact without a source.
var errNoSource = fmt.Errorf("no source")

// stringFact reads cpu, kernel or date.
func (ps *parser) stringFact(key, rest string) error {
	if rest == "" {
		return ps.errorf("%s needs a text (or unknown)", key)
	}
	var dst *string
	switch key {
	case "cpu":
		dst = &ps.p.Facts.CPU
	case "kernel":
		dst = &ps.p.Facts.Kernel
	case "date":
		dst = &ps.p.Facts.Date
	}
	*dst = normalize(rest)
	if *dst == "unknown" {
		*dst = ""
	}
	ps.cont = func(s string) { *dst = normalize(*dst + " " + s) }
	return nil
}

// numericFact reads cpus, hz or pagesize.
func (ps *parser) numericFact(key, rest string) error {
	words := strings.Fields(rest)
	if len(words) == 0 {
		return ps.errorf("%s needs a value (or unknown)", key)
	}
	var v int64
	if words[0] != "unknown" {
		var err error
		if key == "pagesize" {
			v, err = parseSize(words[0])
		} else {
			v, err = strconv.ParseInt(words[0], 10, 32)
			if err != nil {
				err = fmt.Errorf("%q is not a number", words[0])
			}
		}
		if err != nil {
			return ps.errorf("%s: %v", key, err)
		}
		if v <= 0 {
			return ps.errorf("%s: %s: want a positive number or unknown", key, words[0])
		}
	}
	field := numericFactField[key]
	src, err := ps.source(key, words[1:], false)
	switch {
	case err == errNoSource:
	case err != nil:
		return err
	default:
		ps.p.Sources[field] = src
		ps.continueSource(field)
	}
	switch key {
	case "cpus":
		ps.p.Facts.CPUs = int(v)
	case "hz":
		ps.p.Facts.HZ = int(v)
	case "pagesize":
		ps.p.Facts.PageSize = v
	}
	return nil
}

// base reads `base NAME`: the profile starts as a copy of NAME's costs and
// their sources, which later lines override. It must come before the
// costs it would override.
func (ps *parser) base(name string) error {
	if !validName(name) {
		return ps.errorf("base %q: want the name of a shipped profile (%s)", name, strings.Join(Names(), ", "))
	}
	if slices.Contains(ps.stack, name) {
		return ps.errorf("base %s: a cycle (%s → %s)", name, strings.Join(ps.stack, " → "), name)
	}
	if len(ps.set) > 0 {
		return ps.errorf("base must come before the costs it provides")
	}
	text, ok := ps.lookup(name)
	if !ok {
		return ps.errorf("unknown base %q: want the name of a shipped profile (%s)", name, strings.Join(Names(), ", "))
	}
	b, err := parse(name+ext, text, ps.lookup, append(slices.Clone(ps.stack), name)...)
	if err != nil {
		return ps.errorf("base %s: %v", name, err)
	}
	ps.p.Base = name
	ps.p.Costs = b.Costs
	for _, f := range costFields {
		ps.p.Sources[f.name] = b.Sources[f.name]
	}
	return nil
}

// WriteTo writes p in the profile format, every field resolved (a
// derived profile names its base and writes its base's values too), so
// that Parse of the output returns p. Long texts continue on indented
// lines.
func (p *Profile) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	line := func(key, value string, src *Source) {
		text := key + " " + value
		if src != nil {
			text += " " + src.Kind.String() + " " + src.Text
		}
		b.WriteString(wrap(text))
	}
	line("name", p.Name, nil)
	if p.Title != "" {
		line("title", p.Title, nil)
	}
	if p.Base != "" {
		line("base", p.Base, nil)
	}
	orUnknown := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	line("cpu", orUnknown(p.Facts.CPU), nil)
	numeric := func(key string, v int64, format func(int64) string) {
		value := "unknown"
		if v != 0 {
			value = format(v)
		}
		var src *Source
		if s, ok := p.Sources[numericFactField[key]]; ok {
			src = &s
		}
		line(key, value, src)
	}
	itoa := func(v int64) string { return strconv.FormatInt(v, 10) }
	numeric("cpus", int64(p.Facts.CPUs), itoa)
	numeric("hz", int64(p.Facts.HZ), itoa)
	line("kernel", orUnknown(p.Facts.Kernel), nil)
	numeric("pagesize", p.Facts.PageSize, formatSize)
	line("date", orUnknown(p.Facts.Date), nil)
	b.WriteString("\n")
	costs := reflect.ValueOf(p.Costs)
	for _, f := range costFields {
		src := p.Sources[f.name]
		line(f.name, f.format(costs.FieldByIndex(f.index).Int()), &src)
	}
	n, err := w.Write(b.Bytes())
	return int64(n), err
}

// wrapAt is the width WriteTo wraps long lines at.
const wrapAt = 100

// wrap returns text as a line and, where it is longer than wrapAt,
// indented continuation lines, broken at spaces after the fourth word (an
// entry's key, value, provenance and the first word of its text stay on
// its line).
func wrap(text string) string {
	var b strings.Builder
	width, indent := 0, ""
	for i, word := range strings.Fields(text) {
		switch {
		case i == 0:
		case i >= 4 && width+1+len(word) > wrapAt && width > len(indent):
			indent = "    "
			b.WriteString("\n" + indent)
			width = len(indent)
		default:
			b.WriteString(" ")
			width++
		}
		b.WriteString(word)
		width += len(word)
	}
	b.WriteString("\n")
	return b.String()
}
