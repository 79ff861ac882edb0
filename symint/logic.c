/* symcut — symint/logic.c (being written) */
