/* Client requests between npref's preload (npref_preload.c) and the tool (npref_main.c). */
#ifndef NPREF_H
#define NPREF_H
#define NPREF_BASE (((unsigned int)('N' & 0xff)) << 24 | ((unsigned int)('P' & 0xff)) << 16)
enum {
    NPREF_ALLOC = NPREF_BASE + 1,          /* addr, size */
    NPREF_FREE = NPREF_BASE + 2,           /* addr */
    NPREF_FORK = NPREF_BASE + 3,           /* an outermost parallel region begins */
    NPREF_IMPLICIT_BEGIN = NPREF_BASE + 4, /* index in team, team size */
    NPREF_IMPLICIT_END = NPREF_BASE + 5,
    NPREF_BARRIER = NPREF_BASE + 6,        /* a barrier of the thread's team begins */
    NPREF_LEVEL = NPREF_BASE + 7,          /* returns the calling thread's nesting level */
};
#endif
