#!/bin/sh
# example_flamegraph.sh - runs the flame graph example (staprun with the
# test's options) and checks what it printed, line by line: the samples
# vary from run to run, their shape does not.
staprun "$@" >out 2>err
echo "exit $?"
cat err
awk '
	{ n++ }
	# frames without spaces, separated by ";", then " COUNT"
	/^[^ ;]+(;[^ ;]+)* [1-9][0-9]*$/ { shaped++ }
	/(^|;)main;outer;middle;inner( |;)/ { prog++ }
	# in the read: the program, then the kernel, every frame named
	/;main;outer;middle;inner;entry_SYSCALL_64[a-z_]*(;[a-z_][a-z0-9_.]*)+ [0-9]+$/ {
		both++
	}
	END {
		printf("lines in the folded format: %s\n",
		       n > 0 && shaped == n ? "all" : "not all")
		printf("main;outer;middle;inner in a stack: %s\n",
		       prog > 0 ? "yes" : "no")
		printf("user frames then named kernel frames: %s\n",
		       both > 0 ? "yes" : "no")
		if (!(n > 0 && shaped == n && prog > 0 && both > 0))
			while ((getline line < "out") > 0)
				print "  " line
	}' out
