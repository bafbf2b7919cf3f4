// The simulated side of a transcript: a fresh netsim kernel whose
// sockets nlwire.Dial opens.

package wiretest

import (
	"github.com/mdlayher/netlink"

	"github.com/netsimlab/netsim/nlwire"
	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// Sim is a simulated kernel as a Side: a fresh kernel's initial namespace,
// whose sockets dial opens (nlwire.Dial).
type Sim struct {
	K    *rtnl.Kernel
	dial func(*rtnl.Net) (*netlink.Conn, error)
	task *sim.Task
	h    *rtnl.Handle
}

// NewSim returns a Side on a new kernel (rtnl.After) whose sockets dial
// opens.
func NewSim(dial func(*rtnl.Net) (*netlink.Conn, error)) *Sim {
	k := rtnl.MustNewKernel(rtnl.After)
	t := k.World().NewTask("wiretest")
	return &Sim{K: k, dial: dial, task: t, h: k.InitNet().Handle(t)}
}

// Dial opens a socket in the namespace.
func (s *Sim) Dial() (*netlink.Conn, error) { return s.dial(s.K.InitNet()) }

// DialConfig opens a socket in the namespace configured by cfg
// (nlwire.DialConfig).
func (s *Sim) DialConfig(cfg *netlink.Config) (*netlink.Conn, error) {
	return nlwire.DialConfig(s.K.InitNet(), cfg)
}

// Sysctl sets the sysctl through the Handle.
func (s *Sim) Sysctl(key, value string) error { return s.h.Sysctl(key, value) }

// Call makes the Handle request.
func (s *Sim) Call(st Step) error { return st.Handle(s.h) }

// CallPort is 0: a Handle request comes from no socket.
func (s *Sim) CallPort() uint32 { return 0 }

// SelfPID is the process id that stands for the namespace (rtnl.Net.PID).
func (s *Sim) SelfPID() uint32 { return s.K.InitNet().PID() }

// Settle lets SettleTime pass in virtual time, running the kernel's
// deferred work that comes due meanwhile (rtnl.Kernel.SettleFor).
func (s *Sim) Settle(st Step) { s.K.SettleFor(s.task, SettleTime(st, DefaultSettle)) }

// Drain reads c while it is Readable: nlwire queues a request's answers
// and notifications before Send returns.
func (s *Sim) Drain(c *netlink.Conn) ([]netlink.Message, error) { return Drain(c) }

// Close does nothing: the kernel is garbage.
func (s *Sim) Close() error { return nil }
