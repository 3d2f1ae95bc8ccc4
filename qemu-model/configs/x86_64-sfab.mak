# QEMU device configuration for sfab's x86_64 guests: only what the tests
# use.  Installed by tools/setup/build-qemu.sh as
# configs/devices/x86_64-softmmu/sfab.mak and selected with
# --without-default-devices --with-devices-x86_64=sfab.

# q35 machine (ICH9 LPC, ISA serial console, fw_cfg)
CONFIG_Q35=y
CONFIG_SERIAL_ISA=y

# PCIe topology: root ports, and an x3130 switch (upstream and downstream
# ports) to put the HCA and the accelerator behind one switch
CONFIG_PCIE_PORT=y
CONFIG_XIO3130=y

# virtio over PCI: network and 9p for the guests' root file systems
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_NET=y
CONFIG_VIRTIO_9P=y

# the sfab HCA
CONFIG_SFAB_HCA=y

# an NVMe SSD beside the HCA and the accelerator (tools/sfab-vm --nvme):
# the block device nvmet serves from the accelerator's memory (p2pmem)
CONFIG_NVME_PCI=y
# QEMU 10.0's nvme links the SPDM socket backend whether or not it is used
CONFIG_SPDM_SOCKET=y
