/* rung-agent, built static by platform/microvm/microvm.mk, carried inside rung:
 * the initramfs builder writes it out as the guest's /init. */
	.section .rodata
	.balign 16
	.globl rung_agent_start
	.globl rung_agent_end
rung_agent_start:
	.incbin "platform/microvm/rung-agent"
rung_agent_end:
	.section .note.GNU-stack, "", @progbits
