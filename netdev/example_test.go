package netdev_test

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

// Using package netdev on its own: a Stack with its RTNL, one namespace's
// device table, and a task that holds RTNL around every operation (package
// rtnl's Handle does this for you). A vlan on a dummy comes up with it; the
// dummy's multicast list holds the all-nodes group from registration and
// the all-hosts group from up. An invalid name is refused with the
// netlink policy's ERANGE.
func Example() {
	w := sim.MustNewWorld(sim.Options{})
	rtnl := w.NewMutex("RTNL")
	s, _ := netdev.NewStack(w, rtnl, netdev.Config{})
	t := w.NewTask("ip")

	rtnl.Lock(t)
	tbl, _ := s.NewTable(t, "")
	devs, _ := tbl.NewLink(t, netdev.Dummy{Name: "dummy%d"})
	d0 := devs[0]
	_, _ = tbl.NewLink(t, netdev.Vlan{Name: "dummy0.7", Link: "dummy0", ID: 7})
	_ = d0.SetUp(t, true)
	_, err := tbl.NewLink(t, netdev.Dummy{Name: "a-very-long-name"})
	rtnl.Unlock(t)

	for _, d := range tbl.Devices() {
		fmt.Printf("%d: %s <%v> %v\n", d.Index(), d.Name(), d.Flags(), d.OperState())
	}
	for e := range d0.MC().All() {
		fmt.Println(e.Addr)
	}
	fmt.Println(errors.Is(err, syscall.ERANGE), err)
	// Output:
	// 1: lo <LOOPBACK> DOWN
	// 2: dummy0 <BROADCAST,NOARP,UP,LOWER_UP> UNKNOWN
	// 3: dummy0.7 <BROADCAST,NOARP,UP,LOWER_UP> UP
	// 33:33:00:00:00:01
	// 01:00:5e:00:00:01
	// true numerical result out of range: Attribute failed policy validation (name "a-very-long-name" longer than 15 bytes)
}

// A notifier sees the events of a device's life, in the kernel's order.
func ExampleStack_RegisterNotifier() {
	w := sim.MustNewWorld(sim.Options{})
	rtnl := w.NewMutex("RTNL")
	s, _ := netdev.NewStack(w, rtnl, netdev.Config{})
	s.RegisterNotifier(netdev.NotifierFunc(func(_ *sim.Task, ev netdev.Event, d *netdev.Device) error {
		if d.Name() != "lo" {
			fmt.Println(ev, d)
		}
		return nil
	}))
	t := w.NewTask("ip")

	rtnl.Lock(t)
	tbl, _ := s.NewTable(t, "")
	devs, _ := tbl.NewLink(t, netdev.Veth{Name: "va", Peer: "vb"})
	_ = devs[1].SetUp(t, true)
	_ = devs[0].SetUp(t, true)
	_ = tbl.DelLink(t, devs[0])
	todo := s.TakeTodo()
	rtnl.Unlock(t)
	s.RunTodo(t, todo) // netdev_run_todo, after rtnl_unlock
	fmt.Println(tbl.Len(), "device left")
	// Output:
	// NETDEV_REGISTER vb
	// NETDEV_REGISTER va
	// NETDEV_PRE_UP va
	// NETDEV_UP va
	// NETDEV_PRE_UP vb
	// NETDEV_UP vb
	// NETDEV_CHANGE vb
	// NETDEV_CHANGE va
	// NETDEV_GOING_DOWN vb
	// NETDEV_GOING_DOWN va
	// NETDEV_DOWN vb
	// NETDEV_DOWN va
	// NETDEV_UNREGISTER vb
	// NETDEV_UNREGISTER va
	// 1 device left
}

func ExampleValidName() {
	for _, name := range []string{"eth0", "bond0.100", "eth/0", "..", "abcdefghijklmnop"} {
		fmt.Println(name, netdev.ValidName(name))
	}
	// Output:
	// eth0 true
	// bond0.100 true
	// eth/0 false
	// .. false
	// abcdefghijklmnop false
}
