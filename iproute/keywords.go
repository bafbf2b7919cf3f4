// The keyword tables of ip's command parsers: each word a command accepts,
// matched the way ip's matches() and strcmp() do (abbreviations where ip
// allows them).

package iproute

import "strings"

// A keyword is one word a command accepts, with what it does: its parse
// reads the keyword's value(s) from the walker (a.next, nextValue) and
// stores them in the request R. Tables of keywords are a command's
// grammar as data, in ip's order of comparison: a word is the first
// keyword it names (iproute2's if/else chains of matches() and strcmp()).
type keyword[R any] struct {
	names []string // "pref*" matches any non-empty prefix of "pref"; others match exactly
	parse func(a *args, r R) error

	// refused, if set, says what netsim does not model for a keyword ip
	// accepts: its parse refuses it by name.
	refused string
}

// kw is a keyword matched by prefix (iproute2's matches()).
func kw[R any](name string, parse func(a *args, r R) error) keyword[R] {
	return keyword[R]{names: []string{name + "*"}, parse: parse}
}

// exact is a keyword matched only whole (iproute2's strcmp()).
func exact[R any](name string, parse func(a *args, r R) error) keyword[R] {
	return keyword[R]{names: []string{name}, parse: parse}
}

// or adds a name (a trailing "*" matches prefixes) to the keyword.
func (k keyword[R]) or(names ...string) keyword[R] {
	k.names = append(append([]string(nil), k.names...), names...)
	return k
}

// unmodelled marks k as a keyword netsim knows but does not model (why);
// its parse refuses it.
func (k keyword[R]) unmodelled(why string) keyword[R] {
	k.refused = why
	return k
}

// match reports whether word names k.
func (k *keyword[R]) match(word string) bool {
	for _, n := range k.names {
		if p, ok := strings.CutSuffix(n, "*"); ok {
			if matches(word, p) {
				return true
			}
		} else if word == n {
			return true
		}
	}
	return false
}

// lookup returns the first keyword of table that word names, or nil.
func lookup[R any](table []keyword[R], word string) *keyword[R] {
	for i := range table {
		if table[i].match(word) {
			return &table[i]
		}
	}
	return nil
}

// walk parses a command's words with table: each word that names a
// keyword is handed to it; any other word to other (the positional
// argument of the command, or its error), which may be nil to refuse it
// with ip's usage error.
func walk[R any](a *args, table []keyword[R], r R, other func(a *args, r R) error) error {
	for ; a.more(); a.skip() {
		k := lookup(table, a.peek())
		var err error
		switch {
		case k != nil:
			err = k.parse(a, r)
		case other != nil:
			err = other(a, r)
		default:
			err = incomplete()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// keywordNames lists the names of a table's keywords for documentation:
// the first name of each, without its "*".
func keywordNames[R any](table []keyword[R]) []string {
	out := make([]string, 0, len(table))
	for _, k := range table {
		out = append(out, strings.TrimSuffix(k.names[0], "*"))
	}
	return out
}

// keywordRefusals maps the first name of each refused keyword of table to
// what netsim does not model for it.
func keywordRefusals[R any](table []keyword[R]) map[string]string {
	out := map[string]string{}
	for _, k := range table {
		if k.refused != "" {
			out[strings.TrimSuffix(k.names[0], "*")] = k.refused
		}
	}
	return out
}

// keywordModelled lists the first name of each keyword of table that
// netsim models (whose refused is empty).
func keywordModelled[R any](table []keyword[R]) []string {
	var out []string
	for _, k := range table {
		if k.refused == "" {
			out = append(out, strings.TrimSuffix(k.names[0], "*"))
		}
	}
	return out
}

// refusedNow is keyword k, which netsim knows but does not model (why):
// its value, if it takes one, is read first (ip's NEXT_ARG), then the
// command fails (a -force batch goes on).
func refusedNow[R any](k keyword[R], cmd, why string, value bool) keyword[R] {
	k.parse = refuse[R](cmd, why, value)
	k.refused = why
	return k
}

// refuse is the parse of a keyword refused by name: its value, if it takes
// one, is read first, then the command fails with why.
func refuse[R any](cmd, why string, value bool) func(a *args, _ R) error {
	return func(a *args, _ R) error {
		w := a.peek()
		if value {
			if _, err := a.next(); err != nil {
				return err
			}
		}
		return failf("%s: \"%s\" is not supported by netsim: %s.\n", cmd, w, why)
	}
}

// word is the parse of a keyword whose value is one word, stored by set.
func word[R any](set func(r R, v string)) func(a *args, r R) error {
	return func(a *args, r R) error {
		v, err := a.next()
		if err == nil {
			set(r, v)
		}
		return err
	}
}
