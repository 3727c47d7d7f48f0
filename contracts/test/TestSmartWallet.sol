// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title A minimal contract wallet for the escrow's ERC-1271 tests (never deployed outside tests)
/// @notice Holds tokens and calls contracts for its `owner` (`execute`), and accepts a signature
/// when the owner's key signed the hash itself. That is enough to be a payer or a payee whose
/// consent the escrow checks through ERC-1271, as it would a Safe or a passkey wallet's.
/// @dev Real wallets bind the hash to themselves (ERC-7739) so one owner's signature cannot serve
/// two of its wallets; the escrow's struct names the payer, which rules that out here anyway.
contract TestSmartWallet is IERC1271 {
    address public immutable owner;

    error NotOwner(address caller);

    constructor(address owner_) {
        owner = owner_;
    }

    function execute(address target, bytes calldata data) external returns (bytes memory) {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        (bool ok, bytes memory result) = target.call(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(result, 0x20), mload(result))
            }
        }
        return result;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(hash, signature);
        return err == ECDSA.RecoverError.NoError && signer == owner ? IERC1271.isValidSignature.selector : bytes4(0);
    }
}
