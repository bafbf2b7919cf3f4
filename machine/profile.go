// Package machine holds machine profiles: the cost model of one machine
// (every sim.Costs field) with where each value comes from, and the facts
// of the machine it describes (CPU, CPUs, HZ, kernel, page size). A
// profile is a text file a person edits (the format is in Parse); the
// repository ships the development VM's (devvm) and one for each seed's
// machine (seed000 … seed004), which Load finds by name.
//
// sim.DefaultCosts is the devvm profile's costs; sim imports nothing of
// the project, so the Go value stays in sim and a test holds the two
// equal.
package machine

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/netsimlab/netsim/sim"
)

// Provenance is where a value comes from. The zero Provenance is Measured.
type Provenance int

const (
	// Measured: timed on the machine by a command anyone can rerun.
	Measured Provenance = iota
	// Derived: computed from published or measured figures by a formula.
	Derived
	// Calibrated: fitted so that a run reproduces one published time.
	Calibrated
	// Estimated: none of these; the reason for the value is given.
	Estimated
)

var provenanceWords = [...]string{Measured: "measured", Derived: "derived", Calibrated: "calibrated", Estimated: "estimated"}

// String returns "measured", "derived", "calibrated" or "estimated".
func (p Provenance) String() string {
	if p >= 0 && int(p) < len(provenanceWords) {
		return provenanceWords[p]
	}
	return fmt.Sprintf("provenance(%d)", int(p))
}

// parseProvenance returns the Provenance a word of a profile names.
func parseProvenance(w string) (Provenance, bool) {
	for i, s := range provenanceWords {
		if s == w {
			return Provenance(i), true
		}
	}
	return 0, false
}

// Source is where one value of a profile comes from: its Kind and, in
// Text, the command and its output line (measured), the formula and the
// figures (derived), the published row (calibrated) or the reason
// (estimated). The zero Source is an unexplained measurement.
type Source struct {
	Kind Provenance
	Text string
}

// Facts are what is known of a profile's machine. A zero field is not
// known ("unknown" in the file).
type Facts struct {
	CPU      string // the processor, as lscpu or the publication names it
	CPUs     int    // logical CPUs the kernel runs on
	HZ       int    // CONFIG_HZ, the scheduler tick rate
	Kernel   string // the kernel release the costs were measured on
	PageSize int64  // bytes of a base page
	Date     string // when the costs were measured or published
}

// Profile is one machine's cost model: every sim.Costs field with its
// Source, and the machine's Facts. The zero Profile is not valid: a
// profile has a value and a source for every field (Parse checks).
type Profile struct {
	Name, Title string
	// Base is the shipped profile this one derives from ("" none): the
	// fields the file does not set are the base's, with the base's sources.
	Base  string
	Facts Facts
	// Costs holds every field, Memory's included.
	Costs sim.Costs
	// Sources holds the source of every field of Costs by its name
	// ("Syscall", "Memory.L3Hit"), and of the numeric facts the file
	// explains ("CPUs", "HZ", "PageSize").
	Sources map[string]Source
}

//go:embed profiles/*.profile
var shipped embed.FS

// Names returns the names of the shipped profiles, sorted.
func Names() []string {
	entries, err := fs.ReadDir(shipped, "profiles")
	if err != nil {
		panic(err) // the embedded directory is part of the binary
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ext); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// ext is a profile file's extension.
const ext = ".profile"

// shippedText returns the text of the shipped profile name.
func shippedText(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, "/\\.") {
		return nil, false
	}
	b, err := shipped.ReadFile(path.Join("profiles", name+ext))
	return b, err == nil
}

// Load returns the shipped profile nameOrFile if there is one ("devvm",
// "seed003"), else the profile in the file of that path.
func Load(nameOrFile string) (*Profile, error) {
	if b, ok := shippedText(nameOrFile); ok {
		return parse(nameOrFile+ext, b, nil, nameOrFile)
	}
	b, err := os.ReadFile(nameOrFile)
	if err != nil {
		if os.IsNotExist(err) && !strings.ContainsAny(nameOrFile, "/\\") && !strings.HasSuffix(nameOrFile, ext) {
			return nil, fmt.Errorf("no profile %q: not a shipped profile (%s) nor a file", nameOrFile, strings.Join(Names(), ", "))
		}
		return nil, err
	}
	return parse(nameOrFile, b, nil)
}
