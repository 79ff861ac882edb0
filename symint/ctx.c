/* symcut — symint/ctx.c (being written) */
