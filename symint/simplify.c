/* symcut — symint/simplify.c (being written) */
