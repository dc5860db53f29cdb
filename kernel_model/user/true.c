#include "libc.h"

int main(void)
{
	return 0;
}
