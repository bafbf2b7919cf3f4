package sim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/netsimlab/netsim/sim"
)

// Two processes each hold a lock for 3 ms of work; on two virtual CPUs
// the second waits for the first. World.Run schedules them in virtual
// time, deterministically: the run takes 6 ms and nothing is slept for
// real.
func Example() {
	w := sim.MustNewWorld(sim.Options{CPUs: 2})
	rtnl := w.NewMutex("RTNL")
	for _, name := range []string{"ip-a", "ip-b"} {
		w.Spawn(name, func(t *sim.Task) {
			rtnl.Lock(t)
			t.Busy(3 * time.Millisecond)
			rtnl.Unlock(t)
		})
	}
	end := w.Run()
	st := rtnl.Stats()
	fmt.Println("makespan:", end)
	fmt.Println("RTNL held:", st.HoldTotal, "in", st.Acquires, "acquisitions; waited:", st.WaitTotal)
	// Output:
	// makespan: 0.006000s
	// RTNL held: 6ms in 2 acquisitions; waited: 3ms
}

// Charged work is counted and turned into virtual CPU time by the cost
// model: here five syscalls at sim.DefaultCosts' 3.4 µs each.
func ExampleTask_Charge() {
	w := sim.MustNewWorld(sim.Options{})
	t := w.NewTask("ip")
	t.Charge(sim.Syscall, 5)
	fmt.Println(t.Counters().Get(sim.Syscall), "syscalls,", t.CPUTime(), "of CPU, now", t.Now())
	// Output: 5 syscalls, 17µs of CPU, now 0.000017s
}

// msleep sleeps whole jiffies plus one, as the kernel's does: at HZ=1000,
// msleep(250) takes 251 ms of virtual time and no CPU.
func ExampleTask_Msleep() {
	w := sim.MustNewWorld(sim.Options{})
	t := w.NewTask("kworker")
	t.Msleep(250)
	fmt.Println(t.Now(), t.SleepTime(), t.CPUTime())
	// Output: 0.251000s 251ms 0s
}

// rcu_barrier waits for the callbacks queued before it, not for those
// they queue: the chained release of seed 002 is still pending when it
// returns. (The barrier itself costs Costs.BarrierOverhead: 100 µs; on
// the development VM's 4 ms tick the first callback runs at the fourth.)
func ExampleRCU_Barrier() {
	w := sim.MustNewWorld(sim.Options{})
	t := w.NewTask("ip")
	released := false
	w.RCU().Call(t, func(k *sim.Task) { // aca_free_rcu
		w.RCU().Call(k, func(*sim.Task) { released = true }) // fib6_info_destroy_rcu
	})
	w.RCU().Barrier(t)
	fmt.Println(t.Now(), "released:", released)
	t.Msleep(20)
	fmt.Println(t.Now(), "released:", released)
	// Output:
	// 0.016100s released: false
	// 0.037100s released: true
}

// A ChromeTrace records locks, sleeps and grace periods as intervals of
// each task's timeline; WriteJSON writes them for ui.perfetto.dev.
func ExampleChromeTrace() {
	var tr sim.ChromeTrace
	w := sim.MustNewWorld(sim.Options{Tracer: &tr})
	t := w.NewTask("ip")
	end := t.Span("ip link del dummy0")
	rtnl := w.NewMutex("RTNL")
	rtnl.Lock(t)
	w.RCU().Synchronize(t)
	rtnl.Unlock(t)
	t.Msleep(1)
	end()
	for _, e := range tr.Events() {
		fmt.Printf("%-8s %-20s at %v for %v\n", e.Cat, e.Name, e.Start, e.Dur)
	}
	var js bytes.Buffer
	if err := tr.WriteJSON(&js); err != nil {
		fmt.Println(err)
	}
	fmt.Println("valid JSON:", json.Valid(js.Bytes()))
	// Output:
	// sleep    sleep                at 0.000000s for 8.02ms
	// rcu      synchronize_rcu      at 0.000000s for 8.02ms
	// lock     RTNL                 at 0.000000s for 8.02ms
	// sleep    msleep(1)            at 0.008020s for 2ms
	// span     ip link del dummy0   at 0.000000s for 10.02ms
	// valid JSON: true
}
