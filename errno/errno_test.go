package errno_test

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/netsimlab/netsim/errno"
	"github.com/stretchr/testify/require"
)

func TestErrorIsAndMessage(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", errno.New(syscall.ENOENT, "Nexthop id does not exist"))
	require.ErrorIs(t, err, syscall.ENOENT)
	require.NotErrorIs(t, err, syscall.EEXIST)
	require.Equal(t, syscall.ENOENT, errno.Of(err))
	require.Equal(t, "wrapped: no such file or directory: Nexthop id does not exist", err.Error())
	require.Equal(t, syscall.Errno(0), errno.Of(nil))
	require.Equal(t, syscall.Errno(0), errno.Of(errors.New("plain")))
	require.Equal(t, "invalid argument", errno.New(syscall.EINVAL, "").Error())
}

func ExampleErrorf() {
	err := errno.Errorf(syscall.EEXIST, "device %s already exists", "eth0")
	fmt.Println(errors.Is(err, syscall.EEXIST), err)
	// Output: true file exists: device eth0 already exists
}

func TestErrorAt(t *testing.T) {
	e := errno.New(syscall.ERANGE, "VXLAN ID must be lower than 16777216").At("data[IFLA_VXLAN_ID]")
	require.Equal(t, "data[IFLA_VXLAN_ID]", e.Attr)
	require.Equal(t, "numerical result out of range: VXLAN ID must be lower than 16777216", e.Error(), "the attribute is not part of the text")
	require.ErrorIs(t, e, syscall.ERANGE)
}
