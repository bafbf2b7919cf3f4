package hwaddr_test

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/netsimlab/netsim/hwaddr"
)

// Two users of one multicast address share an entry; the entry goes with the
// last reference, and a further delete is ENOENT.
func ExampleList() {
	mc := hwaddr.NewList(hwaddr.TreeIndexed)
	allNodes := hwaddr.MustParseAddr("33:33:00:00:00:01")

	_ = mc.Add(nil, allNodes, hwaddr.TypeMulticast) // ff02::1 joined by IPv6
	_ = mc.Add(nil, allNodes, hwaddr.TypeMulticast) // and by a packet socket
	for e := range mc.All() {
		fmt.Println(e)
	}

	_ = mc.Del(nil, allNodes, hwaddr.TypeMulticast)
	_ = mc.Del(nil, allNodes, hwaddr.TypeMulticast)
	err := mc.Del(nil, allNodes, hwaddr.TypeMulticast)
	fmt.Println(mc.Len(), errors.Is(err, syscall.ENOENT), err)
	// Output:
	// 33:33:00:00:00:01 multicast refcount=2 synced=0 sync_cnt=0
	// 0 true no such file or directory: hardware address 33:33:00:00:00:01 (multicast) not found
}

// An exclusive add (dev_uc_add_excl, as macvlan passthru uses) fails if the
// address is already there.
func ExampleList_AddExcl() {
	uc := hwaddr.NewList(hwaddr.ListOnly)
	mac := hwaddr.MustParseAddr("02:00:00:00:00:0a")

	fmt.Println(uc.AddExcl(nil, mac, hwaddr.TypeUnicast))
	err := uc.AddExcl(nil, mac, hwaddr.TypeUnicast)
	fmt.Println(errors.Is(err, syscall.EEXIST), err)
	fmt.Println(uc.Entries())
	// Output:
	// <nil>
	// true file exists: hardware address 02:00:00:00:00:0a (unicast) already exists
	// [02:00:00:00:00:0a unicast refcount=1 synced=0 sync_cnt=0 global]
}

// A bond pushes its multicast list to its slave (bond_set_rx_mode calls
// dev_mc_sync_multiple). Resyncing an already-synced list changes nothing but
// still searches the slave for every entry: with ListOnly that is
// 1+2+3 = 6 compares for three entries, M(M+1)/2 for M.
func ExampleSyncMultiple() {
	bond := hwaddr.NewList(hwaddr.ListOnly)
	slave := hwaddr.NewList(hwaddr.ListOnly)
	for _, s := range []string{"33:33:00:00:00:01", "33:33:ff:00:00:01", "01:00:5e:00:00:01"} {
		_ = bond.Add(nil, hwaddr.MustParseAddr(s), hwaddr.TypeMulticast)
	}

	_ = hwaddr.SyncMultiple(nil, slave, bond)
	fmt.Println("bond: ", bond.Entries()[0])
	fmt.Println("slave:", slave.Entries()[0])

	before := slave.Compares()
	_ = hwaddr.SyncMultiple(nil, slave, bond)
	fmt.Println("resync compares:", slave.Compares()-before)
	// Output:
	// bond:  33:33:00:00:00:01 multicast refcount=2 synced=0 sync_cnt=1
	// slave: 33:33:00:00:00:01 multicast refcount=1 synced=1 sync_cnt=0
	// resync compares: 6
}

// A counted walk counts the compares of the real walk without walking: the
// same M(M+1)/2 for a resync, in O(M log M) time instead of O(M²).
func ExampleList_SetCountedWalk() {
	for _, counted := range []bool{false, true} {
		bond := hwaddr.NewList(hwaddr.ListOnly)
		slave := hwaddr.NewList(hwaddr.ListOnly)
		bond.SetCountedWalk(counted)
		slave.SetCountedWalk(counted)
		for i := range 1000 {
			_ = bond.Add(nil, hwaddr.Addr{0x33, 0x33, 0xff, 0, byte(i >> 8), byte(i)}, hwaddr.TypeMulticast)
		}
		_ = hwaddr.SyncMultiple(nil, slave, bond)
		before := slave.Compares()
		_ = hwaddr.SyncMultiple(nil, slave, bond)
		fmt.Printf("counted=%v: bond compares %d, resync compares %d\n", slave.CountedWalk(), bond.Compares(), slave.Compares()-before)
	}
	// Output:
	// counted=false: bond compares 499500, resync compares 500500
	// counted=true: bond compares 499500, resync compares 500500
}

func ExampleParseAddr() {
	a, err := hwaddr.ParseAddr("33:33:FF:0:1:2")
	fmt.Println(a, err)
	_, err = hwaddr.ParseAddr("33:33:ff:00:01")
	fmt.Println(err)
	// Output:
	// 33:33:ff:00:01:02 <nil>
	// invalid argument: invalid hardware address "33:33:ff:00:01": want six colon-separated hex octets
}
