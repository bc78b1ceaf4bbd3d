"""The papers: :data:`PAPERS`, each seed's full citation, keyed by seed id ("000" ... "004"), then
the tiered-memory papers (keyed ``numab``, ``tpp``, ``hemem``, ``memtis``, ``colloid``, ``nomad``), which are not seeds.

This is the one declaration of the citations: the report prints them (a section's heading
names its paper by :attr:`Paper.short`, the line under it gives :attr:`Paper.citation`, and the
report ends with every seed's citation), and a test checks that the repository's README.md
contains each seed's :attr:`Paper.citation` verbatim. Seeds without an experiment yet are listed too.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Paper:
    """One seed paper.

    Attributes:
        seed: The seed's id, e.g. ``"000"``.
        short: Authors and year, for headings and the summary (``"Nikolopoulos et al. 2000"``).
        citation: The full citation: authors, title, venue, year.
        note: A remark printed beside the citation (empty if none).
        label: How the report names the paper (default ``"Seed <seed>"``); the tiering papers,
            which are not seeds, give their own. Only seeds must be cited in README.md.
    """

    seed: str
    short: str
    citation: str
    note: str = ""
    label: str = ""

    @property
    def name(self) -> str:
        """The report's name for the paper: :attr:`label`, or ``"Seed <seed>"``."""
        return self.label or f"Seed {self.seed}"

    @property
    def is_seed(self) -> bool:
        """Whether the paper is one of the seeds (the tiering papers are not)."""
        return not self.label


PAPERS: dict[str, Paper] = {
    p.seed: p
    for p in (
        Paper(
            "000",
            "Nikolopoulos et al. 2000",
            "Dimitrios S. Nikolopoulos, Theodore S. Papatheodorou, Constantine D. Polychronopoulos, "
            "Jesús Labarta and Eduard Ayguadé. \"Is Data Distribution Necessary in OpenMP?\" "
            "Proceedings of the ACM/IEEE Conference on Supercomputing (SC 2000), Dallas, 2000.",
        ),
        Paper(
            "001",
            "Bull and Johnson 2002",
            "J. Mark Bull and Chris Johnson. \"Data Distribution, Migration and Replication on a "
            "cc-NUMA Architecture.\" Proceedings of the Fourth European Workshop on OpenMP "
            "(EWOMP 2002), Rome, 2002.",
        ),
        Paper(
            "002",
            "Corbalan et al. 2003",
            "Julita Corbalan, Xavier Martorell and Jesús Labarta. \"Evaluation of the Memory Page "
            "Migration Influence in the System Performance: the Case of the SGI O2000.\" "
            "Proceedings of the 17th ACM International Conference on Supercomputing (ICS '03), "
            "San Francisco, 2003.",
        ),
        Paper(
            "003",
            "Tikir and Hollingsworth 2004",
            "Mustafa M. Tikir and Jeffrey K. Hollingsworth. \"Using Hardware Counters to "
            "Automatically Improve Memory Performance.\" Proceedings of the ACM/IEEE Conference "
            "on Supercomputing (SC 2004), Pittsburgh, 2004.",
        ),
        Paper(
            "004",
            "Talbot and Kelly 2000",
            "Sarah A. M. Talbot and Paul H. J. Kelly. \"Stable Performance for cc-NUMA using First "
            "Touch Page Placement and Reactive Proxies.\" In High Performance Computing Systems and "
            "Applications (HPCS '99), Kluwer Academic Publishers, 2000.",
            note="The seed copy carries no venue line; the venue is attributed from its book-chapter "
            "format and its references, which end in 1997.",
        ),
        Paper(
            "numab",
            "Huang 2022",
            "Huang Ying. \"[PATCH 0/3] memory tiering: hot page selection.\" linux-mm and LKML, "
            "2022-04-08 (-V4, 2022-07-13; merged in Linux 6.1).",
            label="Tiering: NUMA balancing",
        ),
        Paper(
            "tpp",
            "Maruf et al. 2023",
            "Hasan Al Maruf, Hao Wang, Abhishek Dhanotia, Johannes Weiner, Niket Agarwal, Pallab "
            "Bhattacharya, Chris Petersen, Mosharaf Chowdhury, Shobhit Kanaujia and Prakash Chauhan. "
            "\"TPP: Transparent Page Placement for CXL-Enabled Tiered-Memory.\" Proceedings of the 28th "
            "ACM International Conference on Architectural Support for Programming Languages and "
            "Operating Systems (ASPLOS '23), 2023. arXiv 2206.02878.",
            label="Tiering: TPP",
        ),
        Paper(
            "hemem",
            "Raybuck et al. 2021",
            "Amanda Raybuck, Tim Stamler, Wei Zhang, Mattan Erez and Simon Peter. \"HeMem: Scalable "
            "Tiered Memory Management for Big Data Applications and Real NVM.\" Proceedings of the 28th "
            "ACM Symposium on Operating Systems Principles (SOSP '21), 2021.",
            label="Tiering: HeMem",
        ),
        Paper(
            "memtis",
            "Lee et al. 2023",
            "Taehyung Lee, Sumit Kumar Monga, Changwoo Min and Young Ik Eom. \"MEMTIS: Efficient Memory "
            "Tiering with Dynamic Page Classification and Page Size Determination.\" Proceedings of the "
            "29th ACM Symposium on Operating Systems Principles (SOSP '23), 2023.",
            label="Tiering: Memtis",
        ),
        Paper(
            "colloid",
            "Vuppalapati and Agarwal 2024",
            "Midhul Vuppalapati and Rachit Agarwal. \"Tiered Memory Management: Access Latency is the "
            "Key!\" Proceedings of the 30th ACM Symposium on Operating Systems Principles (SOSP '24), 2024.",
            label="Tiering: Colloid",
        ),
        Paper(
            "nomad",
            "Xiang et al. 2024",
            "Lingfeng Xiang, Zhen Lin, Weishu Deng, Hui Lu, Jia Rao, Yifan Yuan and Ren Wang. \"Nomad: "
            "Non-Exclusive Memory Tiering via Transactional Page Migration.\" Proceedings of the 18th "
            "USENIX Symposium on Operating Systems Design and Implementation (OSDI '24), 2024.",
            label="Tiering: NOMAD",
        ),
    )
}
"""Every seed paper, keyed by seed id, in seed order."""


def seed_paper(seed: str) -> Paper:
    """The paper of seed ``seed``.

    Raises:
        KeyError: no such seed; the message lists the known ones.
    """
    try:
        return PAPERS[seed]
    except KeyError:
        raise KeyError(f"unknown seed {seed!r} (known: {', '.join(PAPERS)})") from None
