/* symcut — symint/eval.c (being written) */
