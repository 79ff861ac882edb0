/* symcut — symint/prog.c (being written) */
