package errno_test

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/netsimlab/netsim/errno"
)

// An error of the simulated kernel carries the errno, testable with
// errors.Is, and the extack message ip prints after "Error:".
func ExampleNew() {
	err := error(errno.New(syscall.EINVAL, "Nexthop id does not exist"))
	fmt.Println(err)
	fmt.Println(errors.Is(err, syscall.EINVAL), errors.Is(err, syscall.ENOENT))
	var e *errno.Error
	if errors.As(err, &e) {
		fmt.Printf("Error: %s.\n", e.Msg)
	}
	// Output:
	// invalid argument: Nexthop id does not exist
	// true false
	// Error: Nexthop id does not exist.
}

// Of finds the errno through wrapping; it is 0 for nil and for errors
// that carry none.
func ExampleOf() {
	err := fmt.Errorf("line 3: %w", errno.New(syscall.ENODEV, ""))
	fmt.Println(errno.Of(err) == syscall.ENODEV, err)
	fmt.Println(errno.Of(nil) == 0, errno.Of(errors.New("parse error")) == 0)
	// Output:
	// true line 3: no such device
	// true true
}
