//go:build !linux

package wiretest

import (
	"errors"
	"time"

	"github.com/mdlayher/netlink"
)

// Real is the running kernel as a Side; only Linux has one.
type Real struct{}

// NewReal fails: only Linux has rtnetlink.
func NewReal() (*Real, error) { return nil, errors.New("no rtnetlink on this platform") }

// SetSettle does nothing.
func (r *Real) SetSettle(time.Duration) {}

func (r *Real) Dial() (*netlink.Conn, error)                      { return nil, errors.ErrUnsupported }
func (r *Real) DialConfig(*netlink.Config) (*netlink.Conn, error) { return nil, errors.ErrUnsupported }
func (r *Real) Sysctl(string, string) error                       { return errors.ErrUnsupported }
func (r *Real) Call(Step) error                                   { return errors.ErrUnsupported }
func (r *Real) CallPort() uint32                                  { return 0 }
func (r *Real) SelfPID() uint32                                   { return 0 }
func (r *Real) Settle(Step)                                       {}
func (r *Real) Drain(*netlink.Conn) ([]netlink.Message, error)    { return nil, errors.ErrUnsupported }
func (r *Real) Close() error                                      { return nil }
