/* Device numbers (include/linux/kdev_t.h), spelled as 6.1's: the block and filemap events'
 * print fmts show MAJOR() and MINOR() expanded. */
#ifndef _KDEV_T_H
#define _KDEV_T_H
#include "types.h"

#define MINORBITS	20
#define MINORMASK	((1U << MINORBITS) - 1)
#define MAJOR(dev)	((unsigned int) ((dev) >> MINORBITS))
#define MINOR(dev)	((unsigned int) ((dev) & MINORMASK))
#define MKDEV(ma, mi)	(((ma) << MINORBITS) | (mi))
typedef u32 dev_t;
#endif
