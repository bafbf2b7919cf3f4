// Package sim is netsim's simulation core: virtual time, tasks, virtual CPUs,
// simulated locks, an RCU model, the cost model, work counters and tracing.
//
// Two kinds of cost are first-class. Real work is done by the data structures
// above sim and counted with Task.Charge in deterministic counters (Kind).
// Virtual time is what the kernel would have taken: charged work converted by
// the cost model (Costs), plus sleeps, grace periods and lock waits, none of
// which is ever slept for real.
//
// A World is one simulated machine. Tasks are its processes and kernel
// threads; each has its own virtual clock. World.Run schedules spawned tasks
// deterministically — always the runnable task with the smallest virtual time
// goes next, sharing P virtual CPUs — so the same scenario gives the same
// times and counters, bit for bit, on every machine. Scheduled tasks are
// coroutines of the goroutine that calls Run; with Options.Coarse they
// switch only where they synchronise, which lets thousands of tasks make
// millions of requests in seconds. A Mutex is both a
// simulated lock (FIFO in virtual time, with hold and wait statistics) and a
// real sync.Mutex, so the library is also safe for real concurrent use.
//
// A Profiler records a virtual-time profile: the CPU time, counted work and
// waits of every task by its modelled kernel call stack, which the code
// names with Task.Frame; package sim/vtprof writes it for go tool pprof.
//
// sim imports nothing else of netsim; the kernel subsystems are built on it.
package sim
