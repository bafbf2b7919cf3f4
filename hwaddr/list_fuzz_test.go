package hwaddr_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/hwaddr"
	"github.com/netsimlab/netsim/internal/fuzzops"
	"github.com/netsimlab/netsim/sim"
)

// FuzzList decodes its input into a sequence of list operations — adds and
// deletes with every flag, syncs, multiple syncs and unsyncs between an
// upper list and two lowers, driver syncs with failing callbacks, counted
// walks switched off and on, flushes — and applies each to the reference
// model and to ListOnly, counted ListOnly, TreeIndexed and mixed lists,
// comparing errors, callbacks and every list after every step, and running
// CheckList on every list. The input's first byte chooses the address pool:
// with its low bit set, an address is used under several types, type 0
// included, and only the model and the ListOnly lists take part (a
// TreeIndexed list may pick another entry on an ambiguous type-0 delete).
func FuzzList(f *testing.F) {
	f.Add([]byte("\x00\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0\xd0\xe0\xf0"))
	f.Add([]byte("\x01\x00\x00\x00\x01\x05\x01\x02\x03\x04\x05\x06\x07\x08\x09"))
	f.Fuzz(fuzzListBody)
}

func fuzzListBody(t *testing.T, data []byte) {
	{
		in := fuzzops.New(data)
		multiType := in.Byte()&1 != 0
		task := sim.MustNewWorld(sim.Options{}).NewTask("fuzz")
		L, T := hwaddr.ListOnly, hwaddr.TreeIndexed
		worlds := []*world{
			{name: "model", refs: [3]*refList{{}, {}, {}}},
			newWorld("ListOnly", [3]hwaddr.Policy{L, L, L}, false, nil),
			newWorld("ListOnly/counted", [3]hwaddr.Policy{L, L, L}, true, nil),
		}
		if !multiType {
			worlds = append(worlds,
				newWorld("TreeIndexed", [3]hwaddr.Policy{T, T, T}, false, nil),
				newWorld("mixed/counted", [3]hwaddr.Policy{T, L, T}, true, nil))
		}
		const pool = 8
		addr := func(i int) hwaddr.Addr { return hwaddr.Addr{0x33, 0x33, 0xff, 0, byte(i * 37), byte(i)} }
		types := []hwaddr.Type{mc, uc, hwaddr.TypeLAN}
		anyOf := []hwaddr.Type{0, mc, uc, hwaddr.TypeLAN}
		var log []string
		for step := 0; step < 400 && !in.Exhausted(); step++ {
			li, ai := in.IntN(3), in.IntN(pool)
			a, typ := addr(ai), types[ai%3]
			if multiType {
				typ = anyOf[in.IntN(len(anyOf))]
			}
			var desc string
			var apply func(w *world) (error, []string)
			switch op := in.IntN(8); op {
			case 0, 1:
				var o hwaddr.AddOptions
				flags := in.Byte()
				o.Global, o.Sync, o.Exclusive = flags&1 != 0, flags&2 != 0, flags&4 != 0
				o.SyncCount = int(flags>>3) % 3
				desc = fmt.Sprintf("list%d.AddEx(%s, %s, %+v)", li, a, typ, o)
				apply = func(w *world) (error, []string) {
					if w.refs[li] != nil {
						return w.refs[li].addEx(a, typ, o), nil
					}
					return w.lists[li].AddEx(task, a, typ, o), nil
				}
			case 2, 3:
				var o hwaddr.DelOptions
				flags := in.Byte()
				o.Global, o.Sync = flags&1 != 0, flags&2 != 0
				dt := typ
				if flags&4 != 0 {
					dt = anyOf[int(flags>>3)%len(anyOf)]
					if !multiType && dt != 0 {
						dt = typ // one type per address: only type 0 or the address's own
					}
				}
				desc = fmt.Sprintf("list%d.DelEx(%s, %s, %+v)", li, a, dt, o)
				apply = func(w *world) (error, []string) {
					if w.refs[li] != nil {
						return w.refs[li].delEx(a, dt, o), nil
					}
					return w.lists[li].DelEx(task, a, dt, o), nil
				}
			case 4, 5:
				pairs := [][2]int{{1, 0}, {2, 0}, {2, 1}}
				pr := pairs[in.IntN(len(pairs))]
				to, from := pr[0], pr[1]
				kind := in.IntN(3)
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
						return hwaddr.Sync(task, w.lists[to], w.lists[from]), nil
					case 1:
						return hwaddr.SyncMultiple(task, w.lists[to], w.lists[from]), nil
					}
					hwaddr.Unsync(task, w.lists[to], w.lists[from])
					return nil, nil
				}
			case 6:
				mask := in.Byte() // addresses whose callbacks fail
				flags := in.Byte()
				undo, unsyncNil := flags&1 != 0, flags&2 != 0
				desc = fmt.Sprintf("list%d.SyncDev/UnsyncDev(undo=%v, nil unsync=%v, fail=%08b)", li, undo, unsyncNil, mask)
				apply = func(w *world) (error, []string) {
					var calls []string
					cb := func(verb string) func(hwaddr.Addr) error {
						return func(x hwaddr.Addr) error {
							calls = append(calls, verb+" "+x.String())
							if mask&(1<<(x[5]%8)) != 0 {
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
							w.lists[li].UnsyncDev(task, unsync)
						}
						return nil, calls
					}
					if w.refs[li] != nil {
						return w.refs[li].syncDev(sync, unsync), calls
					}
					return w.lists[li].SyncDev(task, sync, unsync), calls
				}
			default:
				flush := in.Bool()
				desc = fmt.Sprintf("list%d.Flush=%v / SetCountedWalk off and on", li, flush)
				apply = func(w *world) (error, []string) {
					switch {
					case flush && w.refs[li] != nil:
						w.refs[li].es = nil
					case flush:
						w.lists[li].Flush(task)
					case w.counted:
						w.lists[li].SetCountedWalk(false)
						w.lists[li].SetCountedWalk(true)
					}
					return nil, nil
				}
			}
			log = append(log, desc)
			where := func() string {
				return fmt.Sprintf("step %d: %s\nlast operations:\n  %s", step, desc, strings.Join(log[max(0, len(log)-12):], "\n  "))
			}
			model := worlds[0]
			wantErr, wantCalls := apply(model)
			for _, w := range worlds[1:] {
				err, calls := apply(w)
				if (err == nil) != (wantErr == nil) || err != nil && (err.Error() != wantErr.Error() || errno.Of(err) != errno.Of(wantErr)) {
					t.Fatalf("%s\n%s: error %v, model %v", where(), w.name, err, wantErr)
				}
				if !slices.Equal(wantCalls, calls) {
					t.Fatalf("%s\n%s: callbacks %q, model %q", where(), w.name, calls, wantCalls)
				}
				for i := range 3 {
					if want, got := model.entries(i), w.entries(i); !slices.Equal(want, got) {
						t.Fatalf("%s\n%s list%d:\n got   %v\n model %v", where(), w.name, i, got, want)
					}
					if err := hwaddr.CheckList(w.lists[i]); err != nil {
						t.Fatalf("%s\n%s list%d: %v", where(), w.name, i, err)
					}
				}
			}
		}
	}
}
