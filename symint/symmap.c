/* symcut — symint/symmap.c (being written) */
