/* bcryptprimitives.dll for Wine 8, whose own lacks ProcessPrng: the Go
 * runtime (1.24 and later) calls it at start to fill its random source, and
 * a Go program without it dies before main. This one forwards to
 * advapi32's RtlGenRandom (SystemFunction036), which Wine has. Built with
 * mingw-w64 by the checks (tests/wine), copied into the throwaway prefix's
 * system32 and chosen with WINEDLLOVERRIDES=bcryptprimitives=n. Only for
 * the Wine checks: Windows 10 and later have ProcessPrng. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

/* ProcessPrng fills data with size random bytes; it always succeeds on
 * Windows, and returns TRUE. Lengths past a ULONG are filled in parts. */
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size) {
    while (size > 0) {
        ULONG n = size > 0x40000000 ? 0x40000000 : (ULONG)size;
        if (!SystemFunction036(data, n))
            return FALSE;
        data += n;
        size -= n;
    }
    return TRUE;
}
