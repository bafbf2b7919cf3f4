//go:build linux

package wiretest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/netsimlab/netsim/errno"
)

// Real is the running kernel as a Side: a private network namespace made
// by one OS thread that unshares it and never leaves it. The sockets are
// created on that thread, so they belong to the namespace for life (a
// socket's namespace is its creator's at socket(2)); sysctls are written
// there too (/proc/sys/net shows the writer's namespace).
type Real struct {
	work   chan func()
	call   *netlink.Conn // the socket that stands in for Handle steps
	settle time.Duration
}

// NewReal unshares a network namespace. It fails without root or where
// unshare(CLONE_NEWNET) does not work; callers skip then.
func NewReal() (*Real, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("not root")
	}
	r := &Real{work: make(chan func()), settle: DefaultSettle}
	errc := make(chan error)
	go func() {
		// Locked for good: the thread ends with the goroutine, so no
		// other goroutine ever runs in the private namespace.
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("unshare(CLONE_NEWNET): %w", err)
			return
		}
		errc <- nil
		for f := range r.work {
			f()
		}
	}()
	if err := <-errc; err != nil {
		return nil, err
	}
	c, err := r.Dial()
	if err != nil {
		r.Close()
		return nil, err
	}
	if err := c.SetOption(netlink.ExtendedAcknowledge, true); err != nil {
		r.Close()
		return nil, err
	}
	r.call = c
	return r, nil
}

// SetSettle sets how long Settle waits.
func (r *Real) SetSettle(d time.Duration) { r.settle = d }

func (r *Real) do(f func() error) error {
	done := make(chan error)
	r.work <- func() { done <- f() }
	return <-done
}

// Dial opens a NETLINK_ROUTE socket in the namespace.
func (r *Real) Dial() (*netlink.Conn, error) { return r.DialConfig(nil) }

// DialConfig opens a NETLINK_ROUTE socket in the namespace, configured by
// cfg.
func (r *Real) DialConfig(cfg *netlink.Config) (*netlink.Conn, error) {
	var c *netlink.Conn
	err := r.do(func() (err error) {
		c, err = netlink.Dial(unix.NETLINK_ROUTE, cfg)
		return err
	})
	return c, err
}

// Sysctl writes /proc/sys/KEY in the namespace.
func (r *Real) Sysctl(key, value string) error {
	return r.do(func() error {
		return os.WriteFile("/proc/sys/"+strings.ReplaceAll(key, ".", "/"), []byte(value+"\n"), 0)
	})
}

// Call sends the step's request through the stand-in socket, sequence 0,
// and returns its ack as an error.
func (r *Real) Call(s Step) error {
	m := fix(s.Send, 0, r.call.PID())
	m.Header.Sequence = 0
	m.Header.Flags |= netlink.Request | netlink.Acknowledge
	if err := SocketOf(r.call).Send(m); err != nil {
		return err
	}
	msgs, err := r.Drain(r.call)
	if err != nil {
		return err
	}
	for _, a := range msgs {
		if a.Header.Type != netlink.Error || len(a.Data) < 4 {
			continue
		}
		code := -int32(binary.LittleEndian.Uint32(a.Data))
		if code == 0 {
			return nil
		}
		return errno.New(syscall.Errno(code), extackMsg(a))
	}
	return fmt.Errorf("no ack among %d messages", len(msgs))
}

// CallPort is the stand-in socket's port id.
func (r *Real) CallPort() uint32 { return r.call.PID() }

// SelfPID is the id of the thread that unshared the namespace, which
// lives in it.
func (r *Real) SelfPID() uint32 {
	var tid int
	_ = r.do(func() error { tid = unix.Gettid(); return nil })
	return uint32(tid)
}

// Settle sleeps SettleTime.
func (r *Real) Settle(s Step) { time.Sleep(SettleTime(s, r.settle)) }

// Drain reads c without blocking (MSG_DONTWAIT) until it is empty. Each
// read of a dump's part makes the kernel queue the next one.
func (r *Real) Drain(c *netlink.Conn) ([]netlink.Message, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 1<<20)
	var out []netlink.Message
	for {
		var n int
		var rerr error
		if err := rc.Read(func(fd uintptr) bool {
			n, _, rerr = unix.Recvfrom(int(fd), buf, unix.MSG_DONTWAIT)
			return true
		}); err != nil {
			return out, err
		}
		if errors.Is(rerr, unix.EAGAIN) {
			return out, nil
		}
		if rerr != nil {
			return out, rerr
		}
		msgs, err := parseMessages(buf[:n])
		out = append(out, msgs...)
		if err != nil {
			return out, err
		}
	}
}

// Close closes the stand-in socket and ends the namespace's thread.
func (r *Real) Close() error {
	if r.call != nil {
		r.call.Close()
	}
	close(r.work)
	return nil
}
