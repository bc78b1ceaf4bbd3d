// C++: two std::vector<double> of N elements, ITERS parallel scalings of a into b, each
// followed by a serial std::memcpy back, then one sum over an array from new[] (libstdc++'s
// operator new[] calls operator new). Usage: vector N ITERS
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char **argv)
{
    long n = argc > 1 ? std::atol(argv[1]) : 1 << 17;
    int iters = argc > 2 ? std::atoi(argv[2]) : 3;
    std::vector<double> a(n, 1.0), b(n);
    for (int it = 0; it < iters; it++) {
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) b[i] = a[i] * 2;
        std::memcpy(a.data(), b.data(), n * sizeof(double));
    }
    double *c = new double[n];
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) c[i] = a[i];
    std::printf("%g %g\n", a[7], c[n - 1]);
    delete[] c;
    return 0;
}
