package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSweep(t *testing.T) {
	var out bytes.Buffer
	svg := filepath.Join(t.TempDir(), "sweep.svg")
	require.NoError(t, run([]string{"sweep", "003", "-n", "8,16,32", "-rules", "32", "-plot", svg}, &out))
	require.Contains(t, out.String(), "before: makespan ∝ K^")
	require.Contains(t, out.String(), "after: makespan ∝ K^")
	b, err := os.ReadFile(svg)
	require.NoError(t, err)
	require.True(t, strings.Contains(string(b), "<svg"), "an SVG file")

	out.Reset()
	require.NoError(t, run([]string{"sweep", "-json", "-n", "8,16", "-rules", "16", "-family", "6", "003"}, &out))
	var res []struct {
		Mode     string    `json:"mode"`
		Sizes    []int     `json:"sizes"`
		Seconds  []float64 `json:"makespan_s"`
		Exponent float64   `json:"exponent"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &res))
	require.Len(t, res, 2)
	require.Equal(t, []int{8, 16}, res[0].Sizes)
	require.Greater(t, res[0].Exponent, res[1].Exponent, "before grows faster than after")

	for _, bad := range [][]string{
		{"sweep"}, {"sweep", "001"}, {"sweep", "003", "-n", "8"}, {"sweep", "003", "-n", "8,x"},
		{"sweep", "003", "-family", "5"}, {"sweep", "003", "-start", "later"},
	} {
		require.Error(t, run(bad, &out), "%v", bad)
	}
}
