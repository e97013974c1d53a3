# The kernelet's objects, for sandbox kernels that schedule with it.
kernelet-objs := kernelet/sched.o kernelet/timer.o kernelet/runtime.o
