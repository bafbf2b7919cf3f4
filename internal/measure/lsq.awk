# lsq.awk — a and c of y = a·n + c·n², fitted by least squares (the normal
# equations) to lines "n y" (more fields after y are summed into it: "n
# user sys" fits user + sys). Prints "a c NR"; nothing if the sizes cannot
# separate a from c. Used by costs.sh (rules) and addrs.sh (FIT).
{
	n = $1
	y = 0
	for (i = 2; i <= NF; i++) y += $i
	s2 += n * n; s3 += n * n * n; s4 += n * n * n * n
	y1 += n * y; y2 += n * n * y
}
END {
	d = s2 * s4 - s3 * s3
	if (d == 0) exit
	printf "%.6g %.6g %d\n", (y1 * s4 - s3 * y2) / d, (s2 * y2 - s3 * y1) / d, NR
}
