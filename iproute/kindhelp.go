// The help ip 6.1 prints for the link kinds netsim does not model: the
// print_help and parse_opt of their link_utils (ip/iplink_*.c,
// ip/link_*.c of iproute2 6.1), recorded from ip 6.1 in kindhelp.txt. The
// kinds netsim models have theirs beside their parsers (kindHelp).

package iproute

import (
	_ "embed"
	"strings"
	"sync"

	"github.com/netsimlab/netsim/internal/golden"
)

//go:embed kindhelp.txt
var kindHelpFile string

// unmodelledHelp holds kindhelp.txt's sections by name.
var unmodelledHelp = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, s := range golden.Parse(kindHelpFile).Sections {
		m[s.Name] = s.Text
	}
	return m
})

// otherKindHelp is the print_help text of a kind netsim does not model, if
// ip 6.1 has one.
func otherKindHelp(kind string) (string, bool) {
	s, ok := unmodelledHelp()["help "+kind]
	return s, ok
}

// otherKindAddHelp is what the parse_opt of a kind netsim does not model
// prints for `ip link add ... type KIND help` before ip exits with status
// 1, and whether on stdout; ok is false for a kind whose parse_opt does not
// answer help (ip sends the request).
func otherKindAddHelp(kind string) (text string, stdout, ok bool) {
	m := unmodelledHelp()
	if s, ok := m["add "+kind+" stdout"]; ok {
		return s, true, true
	}
	s, ok := m["add "+kind]
	if ok && s == "" {
		s = m["help "+kind]
	}
	return s, false, ok
}

// ignoresKindArgs reports whether ip 6.1's link_util for kind has no
// parse_opt, so that ip ignores the words after "type KIND".
func ignoresKindArgs(kind string) bool {
	for _, k := range strings.Fields(unmodelledHelp()["no parse_opt"]) {
		if k == kind {
			return true
		}
	}
	return false
}

// ipHasLinkUtil reports whether ip 6.1 has a link_util for kind (get_link_kind
// finds one), which reads or ignores the words after "type KIND"; without
// one, any word there is refused by ip itself.
func ipHasLinkUtil(kind string) bool {
	if _, ok := kindHelp[kind]; ok {
		return true
	}
	_, ok := otherKindHelp(kind)
	return ok || ignoresKindArgs(kind)
}

// kindHelpWord reports whether the words after "type KIND" ask a kind's
// parse_opt for its help at once.
func kindHelpWord(typeArgs []string) bool {
	return len(typeArgs) > 0 && typeArgs[0] == "help"
}
