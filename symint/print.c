/* symcut — symint/print.c (being written) */
