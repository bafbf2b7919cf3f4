package hwaddr_test

import (
	"errors"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/hwaddr"
	"github.com/stretchr/testify/require"
)

var (
	policies = []hwaddr.Policy{hwaddr.ListOnly, hwaddr.TreeIndexed}

	allNodes  = hwaddr.MustParseAddr("33:33:00:00:00:01") // ff02::1
	allHosts  = hwaddr.MustParseAddr("01:00:5e:00:00:01") // 224.0.0.1
	solicited = hwaddr.MustParseAddr("33:33:ff:00:00:01") // ff02::1:ff00:1
	station   = hwaddr.MustParseAddr("02:00:00:00:00:0a")
)

const (
	mc = hwaddr.TypeMulticast
	uc = hwaddr.TypeUnicast
)

// step is one operation on a list and the error it must return: none when
// errno is 0, otherwise that errno with exactly msg as its message.
type step struct {
	do    func(l *hwaddr.List) error
	errno syscall.Errno
	msg   string
}

func ok(do func(l *hwaddr.List) error) step { return step{do: do} }

func add(a hwaddr.Addr, t hwaddr.Type) func(*hwaddr.List) error {
	return func(l *hwaddr.List) error { return l.Add(nil, a, t) }
}

func addEx(a hwaddr.Addr, t hwaddr.Type, o hwaddr.AddOptions) func(*hwaddr.List) error {
	return func(l *hwaddr.List) error { return l.AddEx(nil, a, t, o) }
}

func del(a hwaddr.Addr, t hwaddr.Type) func(*hwaddr.List) error {
	return func(l *hwaddr.List) error { return l.Del(nil, a, t) }
}

func delEx(a hwaddr.Addr, t hwaddr.Type, o hwaddr.DelOptions) func(*hwaddr.List) error {
	return func(l *hwaddr.List) error { return l.DelEx(nil, a, t, o) }
}

// requireErr checks err against the expected errno and message.
func requireErr(t *testing.T, err error, want syscall.Errno, msg string, msgAndArgs ...any) {
	t.Helper()
	if want == 0 {
		require.NoError(t, err, msgAndArgs...)
		return
	}
	require.ErrorIs(t, err, want, msgAndArgs...)
	var e *errno.Error
	require.True(t, errors.As(err, &e), msgAndArgs...)
	require.Equal(t, msg, e.Msg, msgAndArgs...)
}

func strs(es []hwaddr.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.String()
	}
	return out
}

// TestListSemantics runs the reference-counting rules of __hw_addr_add_ex and
// __hw_addr_del_ex under both policies. A failing step must leave the list as
// it was.
func TestListSemantics(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
		want  []string // Entry.String of each entry, in list order
	}{
		{
			// The same (address, type) twice is one entry with two references.
			name:  "add twice",
			steps: []step{ok(add(allNodes, mc)), ok(add(allNodes, mc))},
			want:  []string{"33:33:00:00:00:01 multicast refcount=2 synced=0 sync_cnt=0"},
		},
		{
			// New entries go to the tail (list_add_tail_rcu); a second
			// reference does not move an entry.
			name: "insertion order",
			steps: []step{
				ok(add(solicited, mc)), ok(add(allNodes, mc)), ok(add(allHosts, mc)), ok(add(solicited, mc)),
			},
			want: []string{
				"33:33:ff:00:00:01 multicast refcount=2 synced=0 sync_cnt=0",
				"33:33:00:00:00:01 multicast refcount=1 synced=0 sync_cnt=0",
				"01:00:5e:00:00:01 multicast refcount=1 synced=0 sync_cnt=0",
			},
		},
		{
			// An entry removed and added again goes to the tail.
			name: "re-add moves to tail",
			steps: []step{
				ok(add(allNodes, mc)), ok(add(allHosts, mc)), ok(del(allNodes, mc)), ok(add(allNodes, mc)),
			},
			want: []string{
				"01:00:5e:00:00:01 multicast refcount=1 synced=0 sync_cnt=0",
				"33:33:00:00:00:01 multicast refcount=1 synced=0 sync_cnt=0",
			},
		},
		{
			// Del drops one reference; the entry goes with the last one.
			name: "del counts down",
			steps: []step{
				ok(add(allNodes, mc)), ok(add(allNodes, mc)), ok(add(allHosts, mc)),
				ok(del(allNodes, mc)), ok(del(allHosts, mc)),
			},
			want: []string{"33:33:00:00:00:01 multicast refcount=1 synced=0 sync_cnt=0"},
		},
		{
			// Deleting an absent address is ENOENT.
			name: "del missing",
			steps: []step{
				ok(add(allNodes, mc)),
				{do: del(allHosts, mc), errno: syscall.ENOENT, msg: "hardware address 01:00:5e:00:00:01 (multicast) not found"},
			},
			want: []string{"33:33:00:00:00:01 multicast refcount=1 synced=0 sync_cnt=0"},
		},
		{
			// The type is part of the key: same address, other type, ENOENT.
			name: "del other type",
			steps: []step{
				ok(add(station, uc)),
				{do: del(station, hwaddr.TypeLAN), errno: syscall.ENOENT, msg: "hardware address 02:00:00:00:00:0a (lan) not found"},
			},
			want: []string{"02:00:00:00:00:0a unicast refcount=1 synced=0 sync_cnt=0"},
		},
		{
			// Type 0 on delete matches the address under any type.
			name:  "del type 0",
			steps: []step{ok(add(station, uc)), ok(add(station, uc)), ok(del(station, 0))},
			want:  []string{"02:00:00:00:00:0a unicast refcount=1 synced=0 sync_cnt=0"},
		},
		{
			// Type 0 on delete of an absent address is still ENOENT.
			name: "del type 0 missing",
			steps: []step{
				{do: del(station, 0), errno: syscall.ENOENT, msg: "hardware address 02:00:00:00:00:0a (any) not found"},
			},
			want: []string{},
		},
		{
			// Type 0 on add is not a wildcard: __hw_addr_add_ex compares the
			// type byte, so it makes a second entry.
			name:  "add type 0 is exact",
			steps: []step{ok(add(station, uc)), ok(add(station, 0))},
			want: []string{
				"02:00:00:00:00:0a unicast refcount=1 synced=0 sync_cnt=0",
				"02:00:00:00:00:0a any refcount=1 synced=0 sync_cnt=0",
			},
		},
		{
			// A second global add is a no-op: no second reference.
			name: "global twice",
			steps: []step{
				ok(func(l *hwaddr.List) error { return l.AddGlobal(nil, allNodes, mc) }),
				ok(func(l *hwaddr.List) error { return l.AddGlobal(nil, allNodes, mc) }),
			},
			want: []string{"33:33:00:00:00:01 multicast refcount=1 synced=0 sync_cnt=0 global"},
		},
		{
			// A global add on an entry with plain users takes a reference.
			name: "global after plain",
			steps: []step{
				ok(add(allNodes, mc)),
				ok(func(l *hwaddr.List) error { return l.AddGlobal(nil, allNodes, mc) }),
			},
			want: []string{"33:33:00:00:00:01 multicast refcount=2 synced=0 sync_cnt=0 global"},
		},
		{
			// DelGlobal releases the global reference and only that.
			name: "del global",
			steps: []step{
				ok(add(allNodes, mc)),
				ok(func(l *hwaddr.List) error { return l.AddGlobal(nil, allNodes, mc) }),
				ok(func(l *hwaddr.List) error { return l.DelGlobal(nil, allNodes, mc) }),
			},
			want: []string{"33:33:00:00:00:01 multicast refcount=1 synced=0 sync_cnt=0"},
		},
		{
			// DelGlobal of an entry not in global use is ENOENT, even though
			// the entry exists.
			name: "del global not global",
			steps: []step{
				ok(add(allNodes, mc)),
				{
					do:    func(l *hwaddr.List) error { return l.DelGlobal(nil, allNodes, mc) },
					errno: syscall.ENOENT, msg: "hardware address 33:33:00:00:00:01 (multicast) is not in global use",
				},
			},
			want: []string{"33:33:00:00:00:01 multicast refcount=1 synced=0 sync_cnt=0"},
		},
		{
			// AddExcl creates a global entry...
			name:  "excl new",
			steps: []step{ok(func(l *hwaddr.List) error { return l.AddExcl(nil, station, uc) })},
			want:  []string{"02:00:00:00:00:0a unicast refcount=1 synced=0 sync_cnt=0 global"},
		},
		{
			// ...and fails with EEXIST on any existing entry, global or not.
			name: "excl exists",
			steps: []step{
				ok(add(station, uc)),
				{
					do:    func(l *hwaddr.List) error { return l.AddExcl(nil, station, uc) },
					errno: syscall.EEXIST, msg: "hardware address 02:00:00:00:00:0a (unicast) already exists",
				},
			},
			want: []string{"02:00:00:00:00:0a unicast refcount=1 synced=0 sync_cnt=0"},
		},
		{
			// Exclusive is checked before global: EEXIST even though a global
			// add alone would have been a silent no-op.
			name: "excl after global",
			steps: []step{
				ok(func(l *hwaddr.List) error { return l.AddGlobal(nil, station, uc) }),
				{
					do:    func(l *hwaddr.List) error { return l.AddExcl(nil, station, uc) },
					errno: syscall.EEXIST, msg: "hardware address 02:00:00:00:00:0a (unicast) already exists",
				},
			},
			want: []string{"02:00:00:00:00:0a unicast refcount=1 synced=0 sync_cnt=0 global"},
		},
		{
			// A sync add creates the entry with one sync reference.
			name:  "sync add new",
			steps: []step{ok(addEx(allNodes, mc, hwaddr.AddOptions{Sync: true, SyncCount: 3}))},
			want:  []string{"33:33:00:00:00:01 multicast refcount=1 synced=1 sync_cnt=0"},
		},
		{
			// With SyncCount 0 (the upper entry was never pushed anywhere) a
			// sync add stacks on existing sync references: two VLANs sharing
			// one real device.
			name: "sync add stacks",
			steps: []step{
				ok(addEx(allNodes, mc, hwaddr.AddOptions{Sync: true})),
				ok(addEx(allNodes, mc, hwaddr.AddOptions{Sync: true})),
			},
			want: []string{"33:33:00:00:00:01 multicast refcount=2 synced=2 sync_cnt=0"},
		},
		{
			// With SyncCount != 0 on an entry that has sync references, the
			// add is EEXIST: __hw_addr_sync_multiple's "already here".
			name: "sync add already synced",
			steps: []step{
				ok(addEx(allNodes, mc, hwaddr.AddOptions{Sync: true})),
				{
					do:    addEx(allNodes, mc, hwaddr.AddOptions{Sync: true, SyncCount: 1}),
					errno: syscall.EEXIST, msg: "hardware address 33:33:00:00:00:01 (multicast) is already synced",
				},
			},
			want: []string{"33:33:00:00:00:01 multicast refcount=1 synced=1 sync_cnt=0"},
		},
		{
			// An entry with only plain users accepts a sync add whatever
			// SyncCount is.
			name: "sync add onto plain",
			steps: []step{
				ok(add(allNodes, mc)),
				ok(addEx(allNodes, mc, hwaddr.AddOptions{Sync: true, SyncCount: 1})),
			},
			want: []string{"33:33:00:00:00:01 multicast refcount=2 synced=1 sync_cnt=0"},
		},
		{
			// A sync delete needs a sync reference.
			name: "sync del not synced",
			steps: []step{
				ok(add(allNodes, mc)),
				{
					do:    delEx(allNodes, mc, hwaddr.DelOptions{Sync: true}),
					errno: syscall.ENOENT, msg: "hardware address 33:33:00:00:00:01 (multicast) is not synced",
				},
			},
			want: []string{"33:33:00:00:00:01 multicast refcount=1 synced=0 sync_cnt=0"},
		},
		{
			// Both delete checks come before any change: a global+sync delete
			// of a global entry without sync references leaves it global.
			name: "del global and sync is atomic",
			steps: []step{
				ok(func(l *hwaddr.List) error { return l.AddGlobal(nil, allNodes, mc) }),
				{
					do:    delEx(allNodes, mc, hwaddr.DelOptions{Global: true, Sync: true}),
					errno: syscall.ENOENT, msg: "hardware address 33:33:00:00:00:01 (multicast) is not synced",
				},
			},
			want: []string{"33:33:00:00:00:01 multicast refcount=1 synced=0 sync_cnt=0 global"},
		},
		{
			// Global and Sync adds cannot be combined (the kernel would
			// half-apply one on EEXIST); nothing changes.
			name: "add global and sync rejected",
			steps: []step{
				ok(add(allNodes, mc)),
				{
					do:    addEx(allNodes, mc, hwaddr.AddOptions{Global: true, Sync: true}),
					errno: syscall.EINVAL, msg: "hardware address 33:33:00:00:00:01 (multicast): global and sync adds cannot be combined",
				},
			},
			want: []string{"33:33:00:00:00:01 multicast refcount=1 synced=0 sync_cnt=0"},
		},
	}
	for _, tc := range cases {
		for _, p := range policies {
			t.Run(tc.name+"/"+p.String(), func(t *testing.T) {
				l := hwaddr.NewList(p)
				for i, s := range tc.steps {
					before := l.Entries()
					err := s.do(l)
					requireErr(t, err, s.errno, s.msg, "step %d", i)
					if err != nil {
						require.Equal(t, before, l.Entries(), "step %d failed but changed the list", i)
					}
					require.NoError(t, hwaddr.CheckList(l))
				}
				require.Equal(t, tc.want, strs(l.Entries()))
				require.Equal(t, len(tc.want), l.Len())
			})
		}
	}
}

// TestAnyTypeDivergence pins the one place the policies differ, in the kernel
// as here: a type-0 delete when one address is in the list under several
// types. ListOnly takes the first in list order (LAN); TreeIndexed the first
// node its descent meets. Three ascending keys make the middle one (SAN) the
// root.
func TestAnyTypeDivergence(t *testing.T) {
	want := map[hwaddr.Policy][]string{
		hwaddr.ListOnly: {
			"02:00:00:00:00:0a san refcount=1 synced=0 sync_cnt=0",
			"02:00:00:00:00:0a slave refcount=1 synced=0 sync_cnt=0",
		},
		hwaddr.TreeIndexed: {
			"02:00:00:00:00:0a lan refcount=1 synced=0 sync_cnt=0",
			"02:00:00:00:00:0a slave refcount=1 synced=0 sync_cnt=0",
		},
	}
	for _, p := range policies {
		l := hwaddr.NewList(p)
		for _, typ := range []hwaddr.Type{hwaddr.TypeLAN, hwaddr.TypeSAN, hwaddr.TypeSlave} {
			require.NoError(t, l.Add(nil, station, typ))
		}
		e, found := l.Lookup(nil, station, 0)
		require.True(t, found)
		require.NoError(t, l.Del(nil, station, 0))
		require.Equal(t, want[p], strs(l.Entries()), "%s", p)
		require.NotContains(t, strs(l.Entries()), e.String(), "%s: Lookup and Del disagree", p)
	}
}

func TestLookupAndFront(t *testing.T) {
	for _, p := range policies {
		l := hwaddr.NewList(p)
		_, found := l.Front()
		require.False(t, found)
		_, found = l.Lookup(nil, allNodes, mc)
		require.False(t, found)

		require.NoError(t, l.Add(nil, allHosts, mc))
		require.NoError(t, l.Add(nil, allNodes, mc))
		require.NoError(t, l.Add(nil, allNodes, mc))

		e, found := l.Lookup(nil, allNodes, mc)
		require.True(t, found)
		require.Equal(t, hwaddr.Entry{Addr: allNodes, Type: mc, Refcount: 2}, e)
		_, found = l.Lookup(nil, allNodes, uc)
		require.False(t, found)
		e, found = l.Lookup(nil, allNodes, 0)
		require.True(t, found)
		require.Equal(t, mc, e.Type)

		f, found := l.Front()
		require.True(t, found)
		require.Equal(t, allHosts, f.Addr)
	}
}

func TestAllIteration(t *testing.T) {
	for _, p := range policies {
		l := hwaddr.NewList(p)
		addrs := []hwaddr.Addr{solicited, allNodes, allHosts}
		for _, a := range addrs {
			require.NoError(t, l.Add(nil, a, mc))
		}
		var got []hwaddr.Addr
		for e := range l.All() {
			got = append(got, e.Addr)
		}
		require.Equal(t, addrs, got)

		// Stopping early.
		got = got[:0]
		for e := range l.All() {
			got = append(got, e.Addr)
			break
		}
		require.Equal(t, addrs[:1], got)

		// Deleting the entry just yielded is allowed.
		got = got[:0]
		for e := range l.All() {
			got = append(got, e.Addr)
			require.NoError(t, l.Del(nil, e.Addr, e.Type))
		}
		require.Equal(t, addrs, got)
		require.Zero(t, l.Len())
		require.NoError(t, hwaddr.CheckList(l))
	}
}

func TestZeroListAndPolicy(t *testing.T) {
	var l hwaddr.List
	require.Equal(t, hwaddr.ListOnly, l.Policy())
	require.NoError(t, l.Add(nil, allNodes, mc))
	require.Equal(t, 1, l.Len())

	require.Equal(t, hwaddr.ListOnly, hwaddr.NewList(hwaddr.Policy(9)).Policy())
	require.Equal(t, hwaddr.TreeIndexed, hwaddr.NewList(hwaddr.TreeIndexed).Policy())

	for _, p := range policies {
		got, err := hwaddr.ParsePolicy(p.String())
		require.NoError(t, err)
		require.Equal(t, p, got)
	}
	got, err := hwaddr.ParsePolicy("treeindexed")
	require.NoError(t, err)
	require.Equal(t, hwaddr.TreeIndexed, got)
	_, err = hwaddr.ParsePolicy("hash")
	requireErr(t, err, syscall.EINVAL, `unknown hardware address list policy "hash": want ListOnly or TreeIndexed`)
	require.Equal(t, "Policy(9)", hwaddr.Policy(9).String())
}
