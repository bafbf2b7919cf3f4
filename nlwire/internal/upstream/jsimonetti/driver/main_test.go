//go:build linux

// The driver package's live tests that the real kernel of this machine
// fails as netsim does, and the TestMain that skips them by default.

package driver

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

// failsOnLinuxToo are upstream's tests that Linux 6.18 here fails as
// netsim does, for the same reason (nlwire/internal/upstream/linux.sh
// shows it): a run skips them, in addition to what -skip names, unless
// -run names what to run.
var failsOnLinuxToo = map[string]string{
	"TestBridge": "the kernel here is built without CONFIG_BRIDGE_VLAN_FILTERING, as netsim's bridge models it: " +
		"no IFLA_BR_VLAN_PROTOCOL in the dump, and vlan_filtering 1 is EOPNOTSUPP, without an extack message",
}

func TestMain(m *testing.M) {
	flag.Parse()
	if flag.Lookup("test.run").Value.String() == "" {
		var names []string
		for name, why := range failsOnLinuxToo {
			names = append(names, name)
			if testing.Verbose() {
				fmt.Printf("--- SKIP: %s: fails on Linux here too: %s\n", name, why)
			}
		}
		skip := "^(" + strings.Join(names, "|") + ")$"
		if user := flag.Lookup("test.skip").Value.String(); user != "" {
			skip += "|" + user
		}
		if err := flag.Set("test.skip", skip); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
