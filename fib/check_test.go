package fib

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/netsimlab/netsim/nexthop"
	"github.com/netsimlab/netsim/rt"
)

// TestCheckInvariantsCatches breaks one invariant at a time and expects
// CheckInvariants to report it.
func TestCheckInvariantsCatches(t *testing.T) {
	build := func() *env {
		e := newEnv(t, nexthop.FlushDeferred)
		for i := range 12 {
			r := Route{Dst: netip.MustParsePrefix(fmt.Sprintf("10.%d.%d.0/24", i%3, i)), Type: TypeBlackhole, Priority: uint32(i % 2)}
			if err := e.do(func() error { return e.f.Add(e.t, r, rt.ModeAdd) }); err != nil {
				t.Fatal(err)
			}
		}
		return e
	}
	main := func(e *env) *trie { return e.f.Table(TableMain).t }
	firstTnode := func(tr *trie) *tnode { return &tr.tn[tr.root().idx()] }
	for _, tc := range []struct {
		name    string
		breakIt func(e *env)
		want    string
	}{
		{"treeref", func(e *env) {
			for fi := range e.f.fis.all() {
				fi.treeref++
				return
			}
		}, "treeref"},
		{"empty children", func(e *env) { firstTnode(main(e)).empty++ }, "empty"},
		{"suffix length", func(e *env) { firstTnode(main(e)).slen = 0 }, "slen"},
		{"route count", func(e *env) { e.f.Table(TableMain).routes++ }, "routes counted"},
		{"key", func(e *env) {
			tr := main(e)
			for i := 1; i < len(tr.lf); i++ {
				if tr.lf[i].head != 0 {
					tr.lf[i].key ^= 1 << 20
					return
				}
			}
		}, "key"},
		{"dead flag copy", func(e *env) {
			for fi := range e.f.fis.all() {
				e.f.fis.dead[fi.idx] = true
				return
			}
		}, "dead"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := build()
			if err := e.f.CheckInvariants(); err != nil {
				t.Fatalf("before breaking: %v", err)
			}
			tc.breakIt(e)
			err := e.f.CheckInvariants()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckInvariants = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
