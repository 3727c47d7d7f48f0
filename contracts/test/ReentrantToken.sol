// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title Malicious token for the escrow's reentrancy tests (never deployed outside tests)
/// @notice Once armed, its next balance change calls back into `target` with `payload`, i.e.
/// re-enters the escrow while the escrow is in the middle of moving this token. The outcome of
/// that call is recorded instead of bubbled, so the test can see why the re-entry failed while
/// the outer call still completes.
/// @dev It can also act as the escrow's operator through `forward`, so a reentrant
/// `release`/`refund` passes the operator check and only the reentrancy defences stop it.
/// With `gasToBurn` set, every balance change first burns that much gas: a transfer that works
/// with enough gas but runs out under a tight gas limit (the escrow must not mistake that for
/// a refusing recipient).
contract ReentrantToken is ERC20 {
    address public target;
    bytes public payload;
    bool public armed;
    bool public reentryAttempted;
    bool public reentrySucceeded;
    bytes public reentryResult;
    uint256 public gasToBurn;

    constructor() ERC20("Reentrant", "REENT") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function arm(address target_, bytes calldata payload_) external {
        target = target_;
        payload = payload_;
        armed = true;
        reentryAttempted = false;
        reentrySucceeded = false;
        delete reentryResult;
    }

    function setGasToBurn(uint256 gasToBurn_) external {
        gasToBurn = gasToBurn_;
    }

    /// Calls `target_` as this contract (e.g. the escrow's `release` with this token as operator).
    function forward(address target_, bytes calldata data) external returns (bytes memory) {
        (bool ok, bytes memory result) = target_.call(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(result, 0x20), mload(result))
            }
        }
        return result;
    }

    function _update(address from, address to, uint256 value) internal override {
        if (gasToBurn > 0) {
            uint256 start = gasleft();
            while (start - gasleft() < gasToBurn) {}
        }
        super._update(from, to, value);
        if (armed) {
            armed = false;
            reentryAttempted = true;
            (bool ok, bytes memory result) = target.call(payload);
            reentrySucceeded = ok;
            reentryResult = result;
        }
    }
}
