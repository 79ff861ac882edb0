/* symcut — symint/int.c (being written) */
