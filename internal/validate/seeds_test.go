package validate_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/netsimlab/netsim/internal/validate"
	"github.com/netsimlab/netsim/scenario"
	"github.com/netsimlab/netsim/sim"
)

// predictRow returns the predicted time of the row with that ID under c.
func predictRow(t *testing.T, id string, c sim.Costs) time.Duration {
	t.Helper()
	rows, err := validate.Select(validate.Rows(), "^"+id+"$", 0)
	if err != nil || len(rows) != 1 {
		t.Fatalf("row %s: %d rows, %v", id, len(rows), err)
	}
	p, err := validate.Predict(rows[0], c)
	if err != nil {
		t.Fatal(err)
	}
	return p.Timed
}

// TestSameAsSeeds: a row's scripts, run by iproute's batch runner, cost
// what the seed's scenario code charges for the same work, plus what the
// scenario leaves out: the ip process's exec and its batch line (seed 004's
// group deletion), its batch line and the SIOCGIFINDEX ioctl of `ip link
// set DEV` (ll_name_to_index; seed 000's link down, which charges the exec).
// Without the tick for RCU's callbacks: on its grid a wait that starts
// later by the exec ends at the same tick, so the waits do not add up.
func TestSameAsSeeds(t *testing.T) {
	c := devvm(t)
	c.RCUTick = 0
	for _, n := range []int{1000, 5000} {
		rep, err := scenario.Seed004(validate.Config, scenario.Seed004Params{Devices: n, Method: scenario.ByGroup, CPUs: validate.CPUs, Costs: &c})
		if err != nil {
			t.Fatal(err)
		}
		ph, ok := rep.Phase("group")
		if !ok {
			t.Fatal("no phase group")
		}
		got := predictRow(t, fmt.Sprintf("004/group del@%d", n), c)
		if want := ph.Virtual + c.IPExec + c.IPBatchLine; got != want {
			t.Errorf("004/group del@%d: %v, seed 004's group deletion %v + IPExec + IPBatchLine = %v", n, got, ph.Virtual, want)
		}
	}
	r, err := scenario.Seed000(validate.Config, scenario.Seed000Params{Nexthops: 8192, Costs: &c})
	if err != nil {
		t.Fatal(err)
	}
	ph, _ := r.Phase("link down")
	if got, want := predictRow(t, "000/link down before@8192", c), ph.Virtual+c.IPBatchLine+c.Syscall; got != want {
		t.Errorf("000/link down before@8192: %v, seed 000's link down %v + IPBatchLine + Syscall = %v", got, ph.Virtual, want)
	}
}
