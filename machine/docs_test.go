package machine

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/cost-model.md's tables of the shipped profiles")

// docsProfiles returns the markdown docs/cost-model.md shows of the shipped
// profiles: devvm whole, each seed's machine by what it sets itself.
func docsProfiles(t *testing.T) string {
	var b bytes.Buffer
	for _, name := range Names() {
		p, err := Load(name)
		require.NoError(t, err)
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		require.NoError(t, p.WriteMarkdown(&b, name != "devvm"))
	}
	return b.String()
}

// TestDocsCostModel checks that docs/cost-model.md's tables of the shipped
// profiles are what `netsim machine -md` prints (-update-docs rewrites
// them).
func TestDocsCostModel(t *testing.T) {
	const begin, end = "<!-- profiles-begin -->\n", "<!-- profiles-end -->"
	const file = "../docs/cost-model.md"
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	s := string(data)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	require.True(t, i >= 0 && j > i, "docs/cost-model.md lacks the profiles markers")
	want := docsProfiles(t)
	if *updateDocs {
		s = s[:i+len(begin)] + want + s[j:]
		require.NoError(t, os.WriteFile(file, []byte(s), 0o644))
		return
	}
	require.Equal(t, want, s[i+len(begin):j], "docs/cost-model.md's profile tables are stale: go test ./machine -run TestDocsCostModel -update-docs")
}
