package hwaddr_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/hwaddr"
	"github.com/stretchr/testify/require"
)

// refList is the reference model: a slice of entries in list order, each rule
// of net/core/dev_addr_lists.c written out as plainly as possible.
type refList struct {
	es []hwaddr.Entry
}

func refErr(e syscall.Errno, a hwaddr.Addr, t hwaddr.Type, what string) error {
	return errno.Errorf(e, "hardware address %s (%s) %s", a, t, what)
}

// find returns the index of the first entry with address a and type t (any
// type when anyType), or -1.
func (r *refList) find(a hwaddr.Addr, t hwaddr.Type, anyType bool) int {
	for i, e := range r.es {
		if e.Addr == a && (anyType || e.Type == t) {
			return i
		}
	}
	return -1
}

func (r *refList) addEx(a hwaddr.Addr, t hwaddr.Type, o hwaddr.AddOptions) error {
	if o.Global && o.Sync {
		return errno.Errorf(syscall.EINVAL, "hardware address %s (%s): global and sync adds cannot be combined", a, t)
	}
	i := r.find(a, t, false)
	if i < 0 {
		e := hwaddr.Entry{Addr: a, Type: t, Refcount: 1, GlobalUse: o.Global}
		if o.Sync {
			e.Synced = 1
		}
		r.es = append(r.es, e)
		return nil
	}
	e := &r.es[i]
	if o.Exclusive {
		return refErr(syscall.EEXIST, a, t, "already exists")
	}
	if o.Global && e.GlobalUse {
		return nil
	}
	if o.Sync && e.Synced > 0 && o.SyncCount != 0 {
		return refErr(syscall.EEXIST, a, t, "is already synced")
	}
	if o.Global {
		e.GlobalUse = true
	}
	if o.Sync {
		e.Synced++
	}
	e.Refcount++
	return nil
}

func (r *refList) delEx(a hwaddr.Addr, t hwaddr.Type, o hwaddr.DelOptions) error {
	i := r.find(a, t, t == 0)
	if i < 0 {
		return refErr(syscall.ENOENT, a, t, "not found")
	}
	_, err := r.delAt(i, o, a, t)
	return err
}

// delAt drops a reference on entry i and reports whether it was removed.
func (r *refList) delAt(i int, o hwaddr.DelOptions, a hwaddr.Addr, t hwaddr.Type) (bool, error) {
	e := &r.es[i]
	if o.Global && !e.GlobalUse {
		return false, refErr(syscall.ENOENT, a, t, "is not in global use")
	}
	if o.Sync && e.Synced == 0 {
		return false, refErr(syscall.ENOENT, a, t, "is not synced")
	}
	if o.Global {
		e.GlobalUse = false
	}
	if o.Sync {
		e.Synced--
	}
	e.Refcount--
	if e.Refcount == 0 {
		r.es = append(r.es[:i], r.es[i+1:]...)
		return true, nil
	}
	return false, nil
}

// syncOne pushes from.es[i] to r.
func (r *refList) syncOne(from *refList, i int) {
	e := &from.es[i]
	if r.addEx(e.Addr, e.Type, hwaddr.AddOptions{Sync: true, SyncCount: e.SyncCnt}) == nil {
		e.SyncCnt++
		e.Refcount++
	}
}

// unsyncOne takes from.es[i]'s sync reference back from r and reports
// whether from.es[i] was removed.
func (r *refList) unsyncOne(from *refList, i int) bool {
	e := from.es[i]
	if r.delEx(e.Addr, e.Type, hwaddr.DelOptions{Sync: true}) != nil {
		return false
	}
	from.es[i].SyncCnt--
	removed, _ := from.delAt(i, hwaddr.DelOptions{}, e.Addr, e.Type)
	return removed
}

func refSync(to, from *refList) {
	for i := 0; i < len(from.es); {
		removed := false
		switch e := from.es[i]; {
		case e.SyncCnt == 0:
			to.syncOne(from, i)
		case e.Refcount == 1:
			removed = to.unsyncOne(from, i)
		}
		if !removed {
			i++
		}
	}
}

func refSyncMultiple(to, from *refList) {
	for i := 0; i < len(from.es); {
		removed := false
		if e := from.es[i]; e.SyncCnt == e.Refcount {
			removed = to.unsyncOne(from, i)
		} else {
			to.syncOne(from, i)
		}
		if !removed {
			i++
		}
	}
}

func refUnsync(to, from *refList) {
	for i := 0; i < len(from.es); {
		removed := false
		if from.es[i].SyncCnt != 0 {
			removed = to.unsyncOne(from, i)
		}
		if !removed {
			i++
		}
	}
}

func (r *refList) syncDev(sync, unsync func(hwaddr.Addr) error) error {
	for i := 0; i < len(r.es); {
		e := r.es[i]
		if e.SyncCnt != 0 && e.Refcount == 1 && (unsync == nil || unsync(e.Addr) == nil) {
			r.es[i].SyncCnt--
			if removed, _ := r.delAt(i, hwaddr.DelOptions{}, e.Addr, e.Type); removed {
				continue
			}
		}
		i++
	}
	for i := range r.es {
		if r.es[i].SyncCnt == 0 {
			if err := sync(r.es[i].Addr); err != nil {
				return err
			}
			r.es[i].SyncCnt++
			r.es[i].Refcount++
		}
	}
	return nil
}

func (r *refList) unsyncDev(unsync func(hwaddr.Addr) error) {
	for i := 0; i < len(r.es); {
		e := r.es[i]
		if e.SyncCnt != 0 && (unsync == nil || unsync(e.Addr) == nil) {
			r.es[i].SyncCnt--
			if removed, _ := r.delAt(i, hwaddr.DelOptions{}, e.Addr, e.Type); removed {
				continue
			}
		}
		i++
	}
}

// world is one implementation under test: three lists, an upper device
// ("vlan" 0) and two lowers (1, 2), either real Lists or reference models.
type world struct {
	name  string
	lists [3]*hwaddr.List
	refs  [3]*refList
}

func (w *world) entries(i int) []hwaddr.Entry {
	if w.refs[i] != nil {
		if len(w.refs[i].es) == 0 {
			return []hwaddr.Entry{}
		}
		return append([]hwaddr.Entry(nil), w.refs[i].es...)
	}
	return w.lists[i].Entries()
}

var (
	flagSeed  = flag.Uint64("hwaddr.seed", 0, "run TestRandomAgainstModel with this seed only")
	flagSteps = flag.Int("hwaddr.steps", 4000, "operations per seed in TestRandomAgainstModel")
)

// TestRandomAgainstModel runs long random sequences of adds, deletes, syncs,
// unsyncs, driver syncs and flushes on ListOnly lists, TreeIndexed lists, a
// mixed set and the reference model, and compares every result and every
// list after every step. Each address has one fixed type, so type-0 deletes
// are unambiguous (see TestAnyTypeDivergence for the ambiguous case). Rerun a
// failure with -hwaddr.seed=N.
func TestRandomAgainstModel(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5, 6, 7, 8, 406, 0x406f42fa}
	if *flagSeed != 0 {
		seeds = []uint64{*flagSeed}
	}
	steps := *flagSteps
	if testing.Short() {
		steps /= 4
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			runRandom(t, seed, steps)
		})
	}
}

func runRandom(t *testing.T, seed uint64, steps int) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	var pool []hwaddr.Addr
	var typeOf []hwaddr.Type
	for i := range 12 {
		pool = append(pool, hwaddr.Addr{0x33, 0x33, 0xff, 0, byte(i * 37), byte(i)})
		typeOf = append(typeOf, []hwaddr.Type{mc, uc, hwaddr.TypeLAN}[i%3])
	}
	L, T := hwaddr.ListOnly, hwaddr.TreeIndexed
	worlds := []*world{
		{name: "model", refs: [3]*refList{{}, {}, {}}},
		{name: "ListOnly", lists: [3]*hwaddr.List{hwaddr.NewList(L), hwaddr.NewList(L), hwaddr.NewList(L)}},
		{name: "TreeIndexed", lists: [3]*hwaddr.List{hwaddr.NewList(T), hwaddr.NewList(T), hwaddr.NewList(T)}},
		{name: "mixed", lists: [3]*hwaddr.List{hwaddr.NewList(T), hwaddr.NewList(L), hwaddr.NewList(T)}},
	}

	for step := range steps {
		// Draw the operation once; apply it to every world.
		li := rng.IntN(3)
		ai := rng.IntN(len(pool))
		a, typ := pool[ai], typeOf[ai]
		var desc string
		var apply func(w *world) (err error, calls []string)

		switch r := rng.IntN(100); {
		case r < 30:
			o := hwaddr.AddOptions{}
			switch rng.IntN(8) {
			case 0:
				o.Global = true
			case 1:
				o.Global, o.Exclusive = true, true
			case 2:
				o.Sync, o.SyncCount = true, rng.IntN(3)
			case 3:
				o.Exclusive = true
			case 4:
				o.Global, o.Sync = true, true // rejected
			}
			desc = fmt.Sprintf("list%d.AddEx(%s, %s, %+v)", li, a, typ, o)
			apply = func(w *world) (error, []string) {
				if w.refs[li] != nil {
					return w.refs[li].addEx(a, typ, o), nil
				}
				return w.lists[li].AddEx(nil, a, typ, o), nil
			}
		case r < 55:
			dt := typ
			switch rng.IntN(6) {
			case 0:
				dt = 0
			case 1:
				dt = typeOf[(ai+1)%len(pool)] // another type: ENOENT unless equal
			}
			o := hwaddr.DelOptions{}
			switch rng.IntN(6) {
			case 0:
				o.Global = true
			case 1:
				o.Sync = true
			case 2:
				o.Global, o.Sync = true, true
			}
			desc = fmt.Sprintf("list%d.DelEx(%s, %s, %+v)", li, a, dt, o)
			apply = func(w *world) (error, []string) {
				if w.refs[li] != nil {
					return w.refs[li].delEx(a, dt, o), nil
				}
				return w.lists[li].DelEx(nil, a, dt, o), nil
			}
		case r < 90:
			// Syncs: upper 0 to lowers 1 and 2, and 1 on to 2 (a VLAN over
			// a bond over a slave).
			pairs := [][2]int{{1, 0}, {2, 0}, {2, 1}}
			pr := pairs[rng.IntN(len(pairs))]
			to, from := pr[0], pr[1]
			kind := rng.IntN(3)
			desc = fmt.Sprintf("%s(list%d, list%d)", []string{"Sync", "SyncMultiple", "Unsync"}[kind], to, from)
			apply = func(w *world) (error, []string) {
				if w.refs[0] != nil {
					switch kind {
					case 0:
						refSync(w.refs[to], w.refs[from])
					case 1:
						refSyncMultiple(w.refs[to], w.refs[from])
					default:
						refUnsync(w.refs[to], w.refs[from])
					}
					return nil, nil
				}
				switch kind {
				case 0:
					return hwaddr.Sync(nil, w.lists[to], w.lists[from]), nil
				case 1:
					return hwaddr.SyncMultiple(nil, w.lists[to], w.lists[from]), nil
				}
				hwaddr.Unsync(nil, w.lists[to], w.lists[from])
				return nil, nil
			}
		case r < 99:
			fail := map[hwaddr.Addr]bool{}
			for _, x := range pool {
				if rng.IntN(5) == 0 {
					fail[x] = true
				}
			}
			unsyncNil := rng.IntN(4) == 0
			undo := rng.IntN(3) == 0
			desc = fmt.Sprintf("list%d.SyncDev/UnsyncDev(undo=%v, nil unsync=%v, fail=%v)", li, undo, unsyncNil, fail)
			apply = func(w *world) (error, []string) {
				var calls []string
				cb := func(verb string) func(hwaddr.Addr) error {
					return func(x hwaddr.Addr) error {
						calls = append(calls, verb+" "+x.String())
						if fail[x] {
							return fmt.Errorf("%s %s refused", verb, x)
						}
						return nil
					}
				}
				sync, unsync := cb("sync"), cb("unsync")
				if unsyncNil {
					unsync = nil
				}
				if undo {
					if w.refs[li] != nil {
						w.refs[li].unsyncDev(unsync)
					} else {
						w.lists[li].UnsyncDev(nil, unsync)
					}
					return nil, calls
				}
				var err error
				if w.refs[li] != nil {
					err = w.refs[li].syncDev(sync, unsync)
				} else {
					err = w.lists[li].SyncDev(nil, sync, unsync)
				}
				return err, calls
			}
		default:
			desc = fmt.Sprintf("list%d.Flush()", li)
			apply = func(w *world) (error, []string) {
				if w.refs[li] != nil {
					w.refs[li].es = nil
				} else {
					w.lists[li].Flush(nil)
				}
				return nil, nil
			}
		}

		where := fmt.Sprintf("seed=%d step=%d %s", seed, step, desc)
		model := worlds[0]
		before := [3][]hwaddr.Entry{model.entries(0), model.entries(1), model.entries(2)}
		wantErr, wantCalls := apply(model)
		if wantErr != nil && len(wantCalls) == 0 {
			for i := range 3 {
				require.Equal(t, before[i], model.entries(i), "%s: model changed list%d on error %v", where, i, wantErr)
			}
		}
		for _, w := range worlds[1:] {
			err, calls := apply(w)
			if wantErr == nil {
				require.NoError(t, err, "%s: %s", where, w.name)
			} else {
				require.EqualError(t, err, wantErr.Error(), "%s: %s", where, w.name)
				require.Equal(t, errno.Of(wantErr), errno.Of(err), "%s: %s", where, w.name)
			}
			if !slices.Equal(wantCalls, calls) {
				require.Equal(t, wantCalls, calls, "%s: %s callbacks", where, w.name)
			}
			for i := range 3 {
				want, got := model.entries(i), w.entries(i)
				if !slices.Equal(want, got) { // require.Equal only to report: it is slow
					require.Equal(t, want, got, "%s: %s list%d", where, w.name, i)
				}
				if len(want) != w.lists[i].Len() {
					t.Fatalf("%s: %s list%d: Len %d, want %d", where, w.name, i, w.lists[i].Len(), len(want))
				}
				require.NoError(t, hwaddr.CheckList(w.lists[i]), "%s: %s list%d", where, w.name, i)
			}
		}
	}
}
