/* prctl(2)'s options the model has (include/uapi/linux/prctl.h) */
#ifndef _UAPI_PRCTL_H
#define _UAPI_PRCTL_H

#define PR_GET_KEEPCAPS		7
#define PR_SET_KEEPCAPS		8
#define PR_SET_NAME		15
#define PR_GET_NAME		16
#define PR_CAPBSET_READ		23
#define PR_CAPBSET_DROP		24
#define PR_GET_SECUREBITS	27
#define PR_SET_SECUREBITS	28
#define PR_CAP_AMBIENT		47
# define PR_CAP_AMBIENT_IS_SET		1
# define PR_CAP_AMBIENT_RAISE		2
# define PR_CAP_AMBIENT_LOWER		3
# define PR_CAP_AMBIENT_CLEAR_ALL	4
#endif
