/* symcut — symint/range.c (being written) */
