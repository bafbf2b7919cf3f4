package hwaddr_test

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/hwaddr"
	"github.com/stretchr/testify/require"
)

// devs is a set of named lists, one per simulated device.
type devs map[string]*hwaddr.List

func newDevs(p hwaddr.Policy, names ...string) devs {
	d := devs{}
	for _, n := range names {
		d[n] = hwaddr.NewList(p)
	}
	return d
}

// expect checks every named list's entries, in order.
func (d devs) expect(t *testing.T, when string, want map[string][]string) {
	t.Helper()
	for name, w := range want {
		if w == nil {
			w = []string{}
		}
		require.Equal(t, w, strs(d[name].Entries()), "%s: %s", when, name)
		require.NoError(t, hwaddr.CheckList(d[name]), "%s: %s", when, name)
	}
}

// TestSyncOneToOne follows dev_mc_sync from a VLAN to its real device
// (__hw_addr_sync): the push, the idempotent resync, the lower's own user, and
// the release once the VLAN's user is gone.
func TestSyncOneToOne(t *testing.T) {
	for _, p := range policies {
		t.Run(p.String(), func(t *testing.T) {
			d := newDevs(p, "vlan", "real")
			require.NoError(t, d["vlan"].Add(nil, allNodes, mc))
			require.NoError(t, hwaddr.Sync(nil, d["real"], d["vlan"]))
			d.expect(t, "first sync", map[string][]string{
				"vlan": {"33:33:00:00:00:01 multicast refcount=2 synced=0 sync_cnt=1"},
				"real": {"33:33:00:00:00:01 multicast refcount=1 synced=1 sync_cnt=0"},
			})

			require.NoError(t, hwaddr.Sync(nil, d["real"], d["vlan"]))
			d.expect(t, "resync changes nothing", map[string][]string{
				"vlan": {"33:33:00:00:00:01 multicast refcount=2 synced=0 sync_cnt=1"},
				"real": {"33:33:00:00:00:01 multicast refcount=1 synced=1 sync_cnt=0"},
			})

			require.NoError(t, d["real"].Add(nil, allNodes, mc))
			require.NoError(t, d["vlan"].Del(nil, allNodes, mc))
			d.expect(t, "vlan user gone, real user added", map[string][]string{
				"vlan": {"33:33:00:00:00:01 multicast refcount=1 synced=0 sync_cnt=1"},
				"real": {"33:33:00:00:00:01 multicast refcount=2 synced=1 sync_cnt=0"},
			})

			require.NoError(t, hwaddr.Sync(nil, d["real"], d["vlan"]))
			d.expect(t, "sync releases", map[string][]string{
				"vlan": nil,
				"real": {"33:33:00:00:00:01 multicast refcount=1 synced=0 sync_cnt=0"},
			})
		})
	}
}

// TestSyncVLANsShareRealDevice: two VLANs each dev_mc_sync the same address to
// one real device; the sync references stack (SyncCount 0 on each push) and
// unwind one per VLAN.
func TestSyncVLANsShareRealDevice(t *testing.T) {
	for _, p := range policies {
		t.Run(p.String(), func(t *testing.T) {
			d := newDevs(p, "vlan1", "vlan2", "bond")
			for _, v := range []string{"vlan1", "vlan2"} {
				require.NoError(t, d[v].Add(nil, allNodes, mc))
				require.NoError(t, hwaddr.Sync(nil, d["bond"], d[v]))
			}
			d.expect(t, "both synced", map[string][]string{
				"vlan1": {"33:33:00:00:00:01 multicast refcount=2 synced=0 sync_cnt=1"},
				"vlan2": {"33:33:00:00:00:01 multicast refcount=2 synced=0 sync_cnt=1"},
				"bond":  {"33:33:00:00:00:01 multicast refcount=2 synced=2 sync_cnt=0"},
			})
			require.NoError(t, d["vlan1"].Del(nil, allNodes, mc))
			require.NoError(t, hwaddr.Sync(nil, d["bond"], d["vlan1"]))
			d.expect(t, "vlan1 released", map[string][]string{
				"vlan1": nil,
				"bond":  {"33:33:00:00:00:01 multicast refcount=1 synced=1 sync_cnt=0"},
			})
		})
	}
}

// TestSyncMultipleTwoSlaves follows dev_mc_sync_multiple from a bond to two
// slaves (__hw_addr_sync_multiple): each push takes a reference on the bond
// entry, a resync ends in EEXIST and changes nothing, and after the user's
// delete each slave's sync gives one reference back.
func TestSyncMultipleTwoSlaves(t *testing.T) {
	for _, p := range policies {
		t.Run(p.String(), func(t *testing.T) {
			d := newDevs(p, "bond", "s1", "s2")
			require.NoError(t, d["bond"].Add(nil, allNodes, mc))
			require.NoError(t, hwaddr.SyncMultiple(nil, d["s1"], d["bond"]))
			require.NoError(t, hwaddr.SyncMultiple(nil, d["s2"], d["bond"]))
			d.expect(t, "synced to both", map[string][]string{
				"bond": {"33:33:00:00:00:01 multicast refcount=3 synced=0 sync_cnt=2"},
				"s1":   {"33:33:00:00:00:01 multicast refcount=1 synced=1 sync_cnt=0"},
				"s2":   {"33:33:00:00:00:01 multicast refcount=1 synced=1 sync_cnt=0"},
			})

			require.NoError(t, hwaddr.SyncMultiple(nil, d["s1"], d["bond"]))
			d.expect(t, "resync is EEXIST, no change", map[string][]string{
				"bond": {"33:33:00:00:00:01 multicast refcount=3 synced=0 sync_cnt=2"},
				"s1":   {"33:33:00:00:00:01 multicast refcount=1 synced=1 sync_cnt=0"},
			})

			require.NoError(t, d["bond"].Del(nil, allNodes, mc))
			require.NoError(t, hwaddr.SyncMultiple(nil, d["s1"], d["bond"]))
			d.expect(t, "s1 released", map[string][]string{
				"bond": {"33:33:00:00:00:01 multicast refcount=1 synced=0 sync_cnt=1"},
				"s1":   nil,
				"s2":   {"33:33:00:00:00:01 multicast refcount=1 synced=1 sync_cnt=0"},
			})

			require.NoError(t, hwaddr.SyncMultiple(nil, d["s2"], d["bond"]))
			d.expect(t, "s2 released, bond entry gone", map[string][]string{
				"bond": nil,
				"s2":   nil,
			})
		})
	}
}

// TestSyncMultipleOrder: a slave's list mirrors the bond's order, and an
// address removed and added again moves to the tail of both. That is why
// entry j of the bond sits at position j of the slave (SEED001 §5.8).
func TestSyncMultipleOrder(t *testing.T) {
	a, b, c := allNodes, solicited, allHosts
	for _, p := range policies {
		t.Run(p.String(), func(t *testing.T) {
			d := newDevs(p, "bond", "slave")
			for _, x := range []hwaddr.Addr{a, b, c} {
				require.NoError(t, d["bond"].Add(nil, x, mc))
			}
			require.NoError(t, hwaddr.SyncMultiple(nil, d["slave"], d["bond"]))
			require.NoError(t, d["bond"].Del(nil, b, mc))
			require.NoError(t, hwaddr.SyncMultiple(nil, d["slave"], d["bond"]))
			require.NoError(t, d["bond"].Add(nil, b, mc))
			require.NoError(t, hwaddr.SyncMultiple(nil, d["slave"], d["bond"]))
			d.expect(t, "b moved to the tail of both", map[string][]string{
				"bond": {
					"33:33:00:00:00:01 multicast refcount=2 synced=0 sync_cnt=1",
					"01:00:5e:00:00:01 multicast refcount=2 synced=0 sync_cnt=1",
					"33:33:ff:00:00:01 multicast refcount=2 synced=0 sync_cnt=1",
				},
				"slave": {
					"33:33:00:00:00:01 multicast refcount=1 synced=1 sync_cnt=0",
					"01:00:5e:00:00:01 multicast refcount=1 synced=1 sync_cnt=0",
					"33:33:ff:00:00:01 multicast refcount=1 synced=1 sync_cnt=0",
				},
			})
		})
	}
}

// TestUnsync follows dev_mc_unsync on a VLAN's stop (__hw_addr_unsync): every
// sync reference goes back, the lower keeps its own users, the upper keeps its
// own, and an entry whose reference the lower no longer has is left alone.
func TestUnsync(t *testing.T) {
	for _, p := range policies {
		t.Run(p.String(), func(t *testing.T) {
			d := newDevs(p, "vlan", "real")
			require.NoError(t, d["vlan"].Add(nil, allNodes, mc))
			require.NoError(t, d["vlan"].Add(nil, allHosts, mc))
			require.NoError(t, hwaddr.Sync(nil, d["real"], d["vlan"]))
			require.NoError(t, d["real"].Add(nil, allHosts, mc))

			hwaddr.Unsync(nil, d["real"], d["vlan"])
			d.expect(t, "unsynced", map[string][]string{
				"vlan": {
					"33:33:00:00:00:01 multicast refcount=1 synced=0 sync_cnt=0",
					"01:00:5e:00:00:01 multicast refcount=1 synced=0 sync_cnt=0",
				},
				"real": {"01:00:5e:00:00:01 multicast refcount=1 synced=0 sync_cnt=0"},
			})

			// Push again, then lose the lower's entries behind the upper's
			// back (a flush): unsync finds nothing to drop and changes nothing.
			require.NoError(t, hwaddr.Sync(nil, d["real"], d["vlan"]))
			d["real"].Flush(nil)
			hwaddr.Unsync(nil, d["real"], d["vlan"])
			d.expect(t, "stale sync_cnt kept", map[string][]string{
				"vlan": {
					"33:33:00:00:00:01 multicast refcount=2 synced=0 sync_cnt=1",
					"01:00:5e:00:00:01 multicast refcount=2 synced=0 sync_cnt=1",
				},
				"real": nil,
			})
		})
	}
}

// TestSyncDev follows a driver that programs addresses one by one
// (__hw_addr_sync_dev, __hw_addr_unsync_dev), including a failing unsync
// (deferred) and a failing sync (returned at once).
func TestSyncDev(t *testing.T) {
	for _, p := range policies {
		t.Run(p.String(), func(t *testing.T) {
			l := hwaddr.NewList(p)
			var calls []string
			failOn := map[string]bool{}
			cb := func(verb string) func(hwaddr.Addr) error {
				return func(a hwaddr.Addr) error {
					calls = append(calls, verb+" "+a.String())
					if failOn[verb+" "+a.String()] {
						return fmt.Errorf("%s %s refused", verb, a)
					}
					return nil
				}
			}
			sync, unsync := cb("sync"), cb("unsync")
			for _, a := range []hwaddr.Addr{allNodes, allHosts, solicited} {
				require.NoError(t, l.Add(nil, a, mc))
			}
			require.NoError(t, l.SyncDev(nil, sync, unsync))
			require.Equal(t, []string{"sync 33:33:00:00:00:01", "sync 01:00:5e:00:00:01", "sync 33:33:ff:00:00:01"}, calls)
			require.Equal(t, []string{
				"33:33:00:00:00:01 multicast refcount=2 synced=0 sync_cnt=1",
				"01:00:5e:00:00:01 multicast refcount=2 synced=0 sync_cnt=1",
				"33:33:ff:00:00:01 multicast refcount=2 synced=0 sync_cnt=1",
			}, strs(l.Entries()))

			// The user of allHosts goes; the driver refuses the first unsync.
			calls = nil
			require.NoError(t, l.Del(nil, allHosts, mc))
			failOn["unsync 01:00:5e:00:00:01"] = true
			require.NoError(t, l.SyncDev(nil, sync, unsync))
			require.Equal(t, []string{"unsync 01:00:5e:00:00:01"}, calls)
			require.Equal(t, 3, l.Len(), "a failed unsync is deferred")

			delete(failOn, "unsync 01:00:5e:00:00:01")
			calls = nil
			require.NoError(t, l.SyncDev(nil, sync, unsync))
			require.Equal(t, []string{"unsync 01:00:5e:00:00:01"}, calls)
			require.Equal(t, 2, l.Len())

			// A refused sync is returned at once; the entry stays unsynced.
			station2 := hwaddr.MustParseAddr("33:33:ff:00:00:02")
			require.NoError(t, l.Add(nil, allHosts, mc))
			require.NoError(t, l.Add(nil, station2, mc))
			failOn["sync 01:00:5e:00:00:01"] = true
			calls = nil
			err := l.SyncDev(nil, sync, unsync)
			require.EqualError(t, err, "sync 01:00:5e:00:00:01 refused")
			require.Equal(t, []string{"sync 01:00:5e:00:00:01"}, calls, "stops at the first failure")
			require.Equal(t, []string{
				"33:33:00:00:00:01 multicast refcount=2 synced=0 sync_cnt=1",
				"33:33:ff:00:00:01 multicast refcount=2 synced=0 sync_cnt=1",
				"01:00:5e:00:00:01 multicast refcount=1 synced=0 sync_cnt=0",
				"33:33:ff:00:00:02 multicast refcount=1 synced=0 sync_cnt=0",
			}, strs(l.Entries()))

			// ndo_stop: everything synced is taken back.
			calls = nil
			l.UnsyncDev(nil, unsync)
			require.Equal(t, []string{"unsync 33:33:00:00:00:01", "unsync 33:33:ff:00:00:01"}, calls)
			require.Equal(t, []string{
				"33:33:00:00:00:01 multicast refcount=1 synced=0 sync_cnt=0",
				"33:33:ff:00:00:01 multicast refcount=1 synced=0 sync_cnt=0",
				"01:00:5e:00:00:01 multicast refcount=1 synced=0 sync_cnt=0",
				"33:33:ff:00:00:02 multicast refcount=1 synced=0 sync_cnt=0",
			}, strs(l.Entries()))

			// A nil unsync just forgets the syncs.
			delete(failOn, "sync 01:00:5e:00:00:01")
			require.NoError(t, l.SyncDev(nil, sync, nil))
			require.NoError(t, l.Del(nil, allNodes, mc))
			require.NoError(t, l.SyncDev(nil, sync, nil))
			require.Equal(t, 3, l.Len())
			l.UnsyncDev(nil, nil)
			for e := range l.All() {
				require.Zero(t, e.SyncCnt)
				require.Equal(t, 1, e.Refcount)
			}
			require.NoError(t, hwaddr.CheckList(l))
		})
	}
}

func TestFlush(t *testing.T) {
	for _, p := range policies {
		l := hwaddr.NewList(p)
		for _, a := range []hwaddr.Addr{allNodes, allHosts, solicited} {
			require.NoError(t, l.Add(nil, a, mc))
		}
		require.NoError(t, l.Add(nil, allNodes, mc))
		it := l.Iterated()
		l.Flush(nil)
		require.Zero(t, l.Len())
		require.Empty(t, l.Entries())
		require.Equal(t, it+3, l.Iterated())
		require.NoError(t, hwaddr.CheckList(l))
		require.NoError(t, l.Add(nil, allNodes, mc))
		require.Equal(t, 1, l.Len())
		require.NoError(t, hwaddr.CheckList(l))
	}
}

func TestBadInput(t *testing.T) {
	l := hwaddr.NewList(hwaddr.TreeIndexed)
	for _, err := range []error{
		hwaddr.Sync(nil, nil, l),
		hwaddr.SyncMultiple(nil, l, nil),
	} {
		requireErr(t, err, syscall.EINVAL, "nil hardware address list")
	}
	hwaddr.Unsync(nil, nil, l)
	hwaddr.Unsync(nil, l, nil)

	require.NoError(t, l.Add(nil, allNodes, mc))
	err := l.SyncDev(nil, nil, nil)
	requireErr(t, err, syscall.EINVAL, "hardware address sync callback is nil")
	require.Equal(t, []string{"33:33:00:00:00:01 multicast refcount=1 synced=0 sync_cnt=0"}, strs(l.Entries()))
	require.False(t, errors.Is(err, syscall.ENOENT))
}
