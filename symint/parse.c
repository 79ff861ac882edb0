/* symcut — symint/parse.c (being written) */
