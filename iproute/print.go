// ip's output layer: print_string, print_uint and the other print_*
// functions of lib/json_print.c (iproute2 6.1), which write text or JSON
// from one call.

package iproute

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
)

// outType says in which output a printer call writes, as iproute2's enum
// output_type: printAny in both (the value under its key in JSON, through
// the format in text), printFP only in text, printJSON only in JSON.
type outType uint8

const (
	printFP   outType = 1
	printJSON outType = 2
	printAny  outType = 4
)

// printer is the one place an object's values become output: each call
// names the value's JSON key and its text format, and the printer writes
// whichever of the two the command runs with — so the text and the JSON of
// an object come from the same calls and cannot drift apart. Formats are
// Go's (%d for C's %u, %s, %x, ...).
//
// iproute2: lib/json_print.c (print_string, print_uint, ..., print_nl,
// open_json_object, open_json_array).
type printer struct {
	w  *bufio.Writer
	jw *jsonWriter // nil: text output

	// sl is iproute2's _SL_, the line separator inside one object's
	// output: "\n", or "\\" with -oneline.
	sl string
}

func (p *printer) isJSON() bool { return p.jw != nil }

// inJSON and inText are _IS_JSON_CONTEXT and _IS_FP_CONTEXT.
func (p *printer) inJSON(t outType) bool { return p.jw != nil && t&(printJSON|printAny) != 0 }
func (p *printer) inText(t outType) bool { return p.jw == nil && t&(printFP|printAny) != 0 }

// startJSON is new_json_obj (array) or new_json_obj_plain: with json set,
// the output of the command is one JSON document, an array when array is
// set. Every startJSON is paired with endJSON.
func (p *printer) startJSON(json, pretty, array bool) {
	if !json {
		p.jw = nil
		return
	}
	p.jw = newJSONWriter(p.w, pretty)
	if array {
		p.jw.startArray()
	}
}

// endJSON is delete_json_obj(_plain): close the array and end the document.
func (p *printer) endJSON(array bool) {
	if p.jw == nil {
		return
	}
	if array {
		p.jw.endArray()
	}
	p.jw.destroy()
	p.jw = nil
}

// flushJSON writes the JSON buffered so far (before text that bypasses
// the printer, such as an error, would overtake it).
func (p *printer) flushJSON() {
	if p.jw != nil {
		p.jw.flush()
	}
}

// abortJSON leaves the JSON document unfinished, as ip does when a dump
// fails after new_json_obj: what was written so far is output, unclosed,
// and the rest of the command prints text.
func (p *printer) abortJSON() {
	p.flushJSON()
	p.jw = nil
}

// text writes format with args, as printf: a format without verbs is
// written as is, whatever the arguments (print_string(PRINT_FP, NULL,
// "\n", NULL)).
func (p *printer) text(format string, args ...any) {
	p.flushJSON()
	if !strings.Contains(format, "%") {
		p.w.WriteString(format)
		return
	}
	fmt.Fprintf(p.w, format, args...)
}

// openObject and closeObject are open_json_object / close_json_object:
// JSON only; key "" opens an anonymous object (an array element).
func (p *printer) openObject(key string) {
	if p.jw == nil {
		return
	}
	if key != "" {
		p.jw.name(key)
	}
	p.jw.startObject()
}

func (p *printer) closeObject() {
	if p.jw != nil {
		p.jw.endObject()
	}
}

// openArray is open_json_array: in JSON an array under key (none when
// key is ""); in text, for printFP and printAny, key is printed as is.
func (p *printer) openArray(t outType, key string) {
	switch {
	case p.inJSON(t):
		if key != "" {
			p.jw.name(key)
		}
		p.jw.startArray()
	case p.inText(t):
		p.text("%s", key)
	}
}

// closeArray is close_json_array: in text, delim is printed as is.
func (p *printer) closeArray(t outType, delim string) {
	switch {
	case p.inJSON(t):
		p.jw.endArray()
	case p.inText(t):
		p.text("%s", delim)
	}
}

// member starts a JSON value of output t under key ("" for an array
// element) and reports whether it did: the caller then writes the value.
func (p *printer) member(t outType, key string) bool {
	if !p.inJSON(t) {
		return false
	}
	if key != "" {
		p.jw.name(key)
	}
	return true
}

// nl is print_nl: the line separator, in text only.
func (p *printer) nl() {
	if p.jw == nil {
		p.text("%s", p.sl)
	}
}

// str is print_string. In JSON a key without a value ("" value and
// nameOnly) is not possible here; use key "" for an array element.
func (p *printer) str(t outType, key, format, value string) {
	if p.member(t, key) {
		p.jw.str(value)
	} else if p.inText(t) {
		p.text(format, value)
	}
}

// name is print_string(t, key, NULL, NULL) in JSON: a member's name whose
// value the next call writes (an object or array opened without a key).
func (p *printer) name(key string) {
	if p.jw != nil {
		p.jw.name(key)
	}
}

// uint is print_uint, print_u64, print_hu, print_hhu, print_luint: the
// number in JSON, the format in text.
func (p *printer) uint(t outType, key, format string, v uint64) {
	if p.member(t, key) {
		p.jw.uint(v)
	} else if p.inText(t) {
		p.text(format, v)
	}
}

// int is print_int and print_s64.
func (p *printer) int(t outType, key, format string, v int64) {
	if p.member(t, key) {
		p.jw.int(v)
	} else if p.inText(t) {
		p.text(format, v)
	}
}

// bool is print_bool: true/false in JSON; in text the format is given
// "true" or "false".
func (p *printer) bool(t outType, key, format string, v bool) {
	p.boolAs(t, key, format, v, strconv.FormatBool(v))
}

// onOff is print_on_off: a JSON boolean, "on" or "off" in text.
func (p *printer) onOff(t outType, key, format string, v bool) {
	s := "off"
	if v {
		s = "on"
	}
	p.boolAs(t, key, format, v, s)
}

func (p *printer) boolAs(t outType, key, format string, v bool, s string) {
	if p.member(t, key) {
		p.jw.raw(strconv.FormatBool(v))
	} else if p.inText(t) {
		p.text(format, s)
	}
}

// null is print_null: null in JSON, the format with value in text.
func (p *printer) null(t outType, key, format, value string) {
	if p.member(t, key) {
		p.jw.raw("null")
	} else if p.inText(t) {
		p.text(format, value)
	}
}

// hex is print_hex: a JSON string of the hexadecimal digits.
func (p *printer) hex(t outType, key, format string, v uint64) {
	if p.member(t, key) {
		p.jw.str(strconv.FormatUint(v, 16))
	} else if p.inText(t) {
		p.text(format, v)
	}
}

// hex0x is print_0xhex: a JSON string "0x2a" (C's %#llx: "0" for zero).
// In the text format, %#x is C's %#llx too: "0" for zero, unlike Go's.
func (p *printer) hex0x(t outType, key, format string, v uint64) {
	s := "0"
	if v != 0 {
		s = "0x" + strconv.FormatUint(v, 16)
	}
	if p.member(t, key) {
		p.jw.str(s)
	} else if p.inText(t) {
		p.text(strings.Replace(format, "%#x", "%s", 1), s)
	}
}

// float is print_float (and print_tv, given the seconds): %g in JSON, the
// format in text, where %g is C's (six significant digits: "8.58993e+06"),
// unlike Go's.
func (p *printer) float(t outType, key, format string, v float64) {
	if p.member(t, key) {
		p.jw.float(v)
	} else if p.inText(t) {
		p.text(strings.Replace(format, "%g", "%s", 1), formatG(v))
	}
}

// formatG is C's printf("%g", v).
func formatG(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
