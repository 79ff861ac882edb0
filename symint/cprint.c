/* symcut — symint/cprint.c (being written) */
