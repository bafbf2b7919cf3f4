package main

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestProgressOnlyOnTerminals: no bar where stderr is a buffer, a pipe or
// /dev/null; a nil bar does nothing.
func TestProgressOnlyOnTerminals(t *testing.T) {
	require.False(t, isTerminal(&bytes.Buffer{}))
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	require.False(t, isTerminal(w))
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer null.Close()
	require.False(t, isTerminal(null))

	var buf bytes.Buffer
	old := errOut
	errOut = &buf
	defer func() { errOut = old }()
	p := newProgress("seeds", 10)
	require.Nil(t, p)
	p.Set(3)
	p.Add(1)
	p.Finish()
	require.Empty(t, buf.String())
}

// TestProgressDraw: the bar shows the units done and is erased at the end.
func TestProgressDraw(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, label: "sweep", total: 10, start: time.Now(), stop: make(chan struct{})}
	p.Set(3)
	p.Add(2)
	p.Add(20) // never past the total
	p.draw()
	require.Regexp(t, `^\rsweep \[#{30}\] 10/10 \d+s $`, buf.String())
	buf.Reset()
	p.Finish()
	require.Equal(t, "\r\033[K", buf.String())
}
