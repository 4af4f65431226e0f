/* rung's vDSO image (built from guest.c by Makefile.am), embedded in rung. */
	.section .rodata
	.balign 4096
	.globl rung_vdso_image
rung_vdso_image:
	.incbin "sentry/loader/vdso/vdso.so"
	.globl rung_vdso_image_end
rung_vdso_image_end:

	.section .note.GNU-stack, "", @progbits
