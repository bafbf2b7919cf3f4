// ip's JSON writer (lib/json_writer.c of iproute2 6.1): the -j and -p
// output, byte for byte.

package iproute

import (
	"io"
	"strconv"
)

// jsonWriter writes JSON the way iproute2's json_writer does, byte for
// byte: compact by default, and with -pretty a newline and four spaces per
// level before every member, "[ " and " ]" around a non-empty array, and
// ": " after a name. Strings are escaped as json_writer escapes them (tab,
// newline, carriage return, form feed, backspace, backslash and double
// quote) and every other byte is written as is, which encoding/json would
// not do (it escapes <, > and &, other control bytes and invalid UTF-8).
//
// iproute2: lib/json_writer.c.
type jsonWriter struct {
	w      io.Writer
	buf    []byte
	depth  int
	pretty bool
	sep    byte // ',' once a value was written at this level, else 0
}

func newJSONWriter(w io.Writer, pretty bool) *jsonWriter {
	return &jsonWriter{w: w, pretty: pretty}
}

// flush writes what was buffered.
func (j *jsonWriter) flush() {
	if len(j.buf) > 0 {
		j.w.Write(j.buf)
		j.buf = j.buf[:0]
	}
}

// eol starts a new line at the current depth (pretty only).
func (j *jsonWriter) eol() {
	if !j.pretty {
		return
	}
	j.buf = append(j.buf, '\n')
	for range j.depth {
		j.buf = append(j.buf, "    "...)
	}
}

// eor separates a value from the one before it at the same level.
func (j *jsonWriter) eor() {
	if j.sep != 0 {
		j.buf = append(j.buf, j.sep)
	}
	j.sep = ','
}

func (j *jsonWriter) quote(s string) {
	j.buf = append(j.buf, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\t':
			j.buf = append(j.buf, `\t`...)
		case '\n':
			j.buf = append(j.buf, `\n`...)
		case '\r':
			j.buf = append(j.buf, `\r`...)
		case '\f':
			j.buf = append(j.buf, `\f`...)
		case '\b':
			j.buf = append(j.buf, `\b`...)
		case '\\':
			j.buf = append(j.buf, `\\`...)
		case '"':
			j.buf = append(j.buf, `\"`...)
		default:
			j.buf = append(j.buf, c)
		}
	}
	j.buf = append(j.buf, '"')
}

func (j *jsonWriter) begin(c byte) {
	j.eor()
	j.buf = append(j.buf, c)
	j.depth++
	j.sep = 0
}

func (j *jsonWriter) end(c byte) {
	j.depth--
	if j.sep != 0 {
		j.eol()
	}
	j.buf = append(j.buf, c)
	j.sep = ','
}

// name writes an object member's name; its value follows.
func (j *jsonWriter) name(s string) {
	j.eor()
	j.eol()
	j.sep = 0
	j.quote(s)
	j.buf = append(j.buf, ':')
	if j.pretty {
		j.buf = append(j.buf, ' ')
	}
}

func (j *jsonWriter) startObject() { j.begin('{') }
func (j *jsonWriter) endObject()   { j.end('}') }

func (j *jsonWriter) startArray() {
	j.begin('[')
	if j.pretty {
		j.buf = append(j.buf, ' ')
	}
}

func (j *jsonWriter) endArray() {
	if j.pretty && j.sep != 0 {
		j.buf = append(j.buf, ' ')
	}
	j.sep = 0
	j.end(']')
}

// raw writes a value already formatted (a number, true, false, null).
func (j *jsonWriter) raw(s string) {
	j.eor()
	j.buf = append(j.buf, s...)
}

func (j *jsonWriter) str(s string) {
	j.eor()
	j.quote(s)
}

func (j *jsonWriter) uint(v uint64) { j.eor(); j.buf = strconv.AppendUint(j.buf, v, 10) }
func (j *jsonWriter) int(v int64)   { j.eor(); j.buf = strconv.AppendInt(j.buf, v, 10) }

// float is jsonw_float: printf's %g.
func (j *jsonWriter) float(v float64) { j.raw(formatG(v)) }

// destroy ends the document as jsonw_destroy does: a newline.
func (j *jsonWriter) destroy() {
	j.buf = append(j.buf, '\n')
	j.flush()
}
