/* The unit tests' entry point: every *_test.c registers its tests with TEST(). */
#include "check.h"

int main(int argc, char **argv)
{
	return check_main(argc, argv);
}
