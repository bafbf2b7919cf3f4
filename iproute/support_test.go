package iproute_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netsimlab/netsim/iproute"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/ip.md's table of the ip netsim runs")

// supportMarkdown renders iproute's own tables of options, objects and
// commands as docs/ip.md shows them.
func supportMarkdown() string {
	var b strings.Builder
	b.WriteString("Options (`ip OPTIONS ...`), in the order ip compares them; a word is the first option it abbreviates:\n\n")
	b.WriteString("| option | netsim |\n|---|---|\n")
	for _, o := range iproute.Options() {
		what := "runs as ip 6.1 does"
		switch {
		case o.Refused != "":
			what = "refused: " + o.Refused
		case o.Note != "":
			what = "accepted: " + o.Note
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", o.Name, what)
	}
	b.WriteString("\nObjects and commands (`ip OBJECT COMMAND ...`). A keyword refused by name fails its command with what netsim does not model; a `-force` batch goes on:\n\n")
	b.WriteString("| object | command | keywords | netsim |\n|---|---|---|---|\n")
	for _, r := range iproute.Support() {
		what := "runs as ip 6.1 does"
		switch {
		case r.Refused != "":
			what = "refused: " + r.Refused
		case r.Unsupported != "":
			what = "runs; refuses " + r.Unsupported
		}
		kw := ""
		if len(r.Keywords) > 0 {
			kw = "`" + strings.Join(r.Keywords, "` `") + "`"
		}
		if len(r.RefusedKeywords) > 0 {
			what += "; refuses by name " + strings.Join(r.RefusedKeywords, "; ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.Object, r.Command, kw, what)
	}
	return b.String()
}

// TestDocsIPSupport checks that docs/ip.md's table of what ip netsim runs
// is the one the code's tables give (-update-docs rewrites it).
func TestDocsIPSupport(t *testing.T) {
	const begin, end = "<!-- ip-support-begin -->\n", "<!-- ip-support-end -->"
	const file = "../docs/ip.md"
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	s := string(data)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	require.True(t, i >= 0 && j > i, "docs/ip.md lacks the ip-support markers")
	want := supportMarkdown()
	if *updateDocs {
		s = s[:i+len(begin)] + want + s[j:]
		require.NoError(t, os.WriteFile(file, []byte(s), 0o644))
		return
	}
	require.Equal(t, want, s[i+len(begin):j], "docs/ip.md's ip table is stale: go test ./iproute -run TestDocsIPSupport -update-docs")
}
