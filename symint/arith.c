/* symcut — symint/arith.c (being written) */
