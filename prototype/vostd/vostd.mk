# vOSTD's objects, for the Kbuild file of every sandbox kernel built on it.
vostd-objs := vostd/boot.o vostd/format.o vostd/log.o vostd/upcall.o \
	      vostd/heap.o vostd/slab.o vostd/task.o vostd/cpu.o vostd/stats.o vostd/mm.o \
	      vostd/report.o vostd/string.o vostd/switch.o vostd/sanitize.o \
	      vostd/sanitize_report.o

# Sandbox code is not Linux's to trace or to panic over: no ftrace entry
# calls, and no stack protector calling Linux's __stack_chk_fail (vOSTD
# checks its stacks' magic instead).
# Nor may the compiler turn a loop into a call to memset: it would find
# vOSTD's own (vostd/string.c), never Linux's, but a loop stays a loop.
# The checking mode's reports name sources from prototype/, as
# kernels/mem/bugs.c, not from wherever the build tree is.
vostd-ccflags := -I$(src)/abi -I$(src)/vostd -I$(src)/kernelet -fno-stack-protector \
		 -fno-tree-loop-distribute-patterns -fmacro-prefix-map=$(src)/=
vostd-ccflags-remove := $(CC_FLAGS_FTRACE) -fstack-protector -fstack-protector-strong
vostd-asflags := -I$(src)/abi

# Nor is sandbox code the debug kernel's to instrument (GUEST_KERNEL=debug):
# KASAN's, UBSAN's and KCSAN's checks are calls into Linux.  vOSTD has its
# own checking mode for its heap (vostd/sanitize.c).
KASAN_SANITIZE := n
UBSAN_SANITIZE := n
KCSAN_SANITIZE := n
KCOV_INSTRUMENT := n

# vOSTD's store checks, a prototype (vostd/sfi.c): a kernel built with these
# too has a check before every store its C code makes through a pointer.
# GCC's kernel address sanitizer puts them there, writes only and each one
# a call, and sfi.c answers the calls; sfi.c itself is not instrumented.
vostd-sfi-objs := vostd/sfi.o
vostd-sfi-ccflags := -DVOSTD_SFI -fsanitize=kernel-address --param asan-instrument-reads=0 \
		     --param asan-stack=0 --param asan-globals=0 \
		     --param asan-instrumentation-with-call-threshold=0
CFLAGS_REMOVE_vostd/sfi.o := -fsanitize=kernel-address
